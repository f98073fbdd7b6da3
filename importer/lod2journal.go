package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/svc-geodata/svc/bl"
	"github.com/svc-geodata/svc/lod2store"
)

// A LoD2 import is resumable: it writes into <data>/lod2/<bl>/.resume-
// <snapshot>/ (pack.CreateResumable) and keeps there a journal, one JSON
// object per line: a header naming the import, then per finished input
// file what the summary needs of it (its bad-file reason, invalid and
// skipped buildings, BL id prefixes, place tally, content hash), and after
// every checkpointBytes of input a checkpoint: the files done and the
// writer's state, committed to the SQLite file before the line is written.
// A killed import (kill -9, power cut, disk full, Ctrl-C) continues with
// Common.Resume from its last checkpoint: the files before it are not read
// again, those after it are. The journal is removed before the pack is
// committed, so it never reaches a published pack.
const journalName = "import-journal.jsonl"

// journalFormat names the journal's format; a journal of another format is
// not resumed.
const journalFormat = "svc-lod2-import/1"

// checkpointBytes is the source input between two checkpoints: what a
// resumed import may have to read again.
const checkpointBytes = 16 << 20

type journalLine struct {
	Header     *journalHeader     `json:"header,omitempty"`
	File       *journalFile       `json:"file,omitempty"`
	Checkpoint *journalCheckpoint `json:"checkpoint,omitempty"`
}

type journalHeader struct {
	Format   string `json:"format"`
	BL       string `json:"bl"`
	Snapshot string `json:"snapshot"`
	Inputs   int    `json:"inputs"`
}

// journalFile is one finished input file.
type journalFile struct {
	I        int               `json:"i"`
	Name     string            `json:"name"`
	Size     int64             `json:"size"`
	SHA256   string            `json:"sha256,omitempty"`
	Bad      string            `json:"bad,omitempty"`
	Handled  int64             `json:"buildings"` // buildings handed to the writer
	Invalid  []InvalidBuilding `json:"invalid,omitempty"`
	Skipped  [][2]string       `json:"skipped,omitempty"` // gml:id, file:line
	Prefixes map[string]int    `json:"prefixes,omitempty"`
	Example  map[string]string `json:"example,omitempty"`
	Tally    *bl.TallyCounts   `json:"tally,omitempty"`
}

type journalCheckpoint struct {
	Files  int                    `json:"files"` // inputs[:Files] are done
	Writer *lod2store.WriterState `json:"writer,omitempty"`
}

// journal appends to the journal file.
type journal struct {
	f       *os.File
	pending []journalFile // written to the store, not yet checkpointed
	since   int64         // input bytes since the last checkpoint
}

// resumed is what a journal says about an interrupted import.
type resumed struct {
	files  []journalFile
	writer *lod2store.WriterState
	end    int64 // journal bytes up to the last checkpoint
}

// readJournal reads the journal in dir; ok is false when there is none or
// it belongs to another import. A line cut short by a kill ends it.
func readJournal(dir string, h journalHeader) (r resumed, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, journalName))
	if errors.Is(err, os.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var off int64
	var files []journalFile
	for first := true; ; first = false {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a last line without newline was cut short
		}
		if err != nil {
			return r, false, err
		}
		off += int64(len(line))
		var l journalLine
		if json.Unmarshal(line, &l) != nil {
			break
		}
		switch {
		case first:
			if l.Header == nil || *l.Header != h {
				return r, false, nil
			}
			r.end = off
		case l.File != nil:
			files = append(files, *l.File)
		case l.Checkpoint != nil:
			if l.Checkpoint.Files != len(files) {
				return r, false, fmt.Errorf("journal: checkpoint after %d files lists %d", len(files), l.Checkpoint.Files)
			}
			r.files, r.writer, r.end = files, l.Checkpoint.Writer, off
			files = append([]journalFile(nil), files...)
		}
	}
	return r, r.end > 0, nil
}

// openJournal opens the journal in dir for appending after its first end
// bytes (0: a new journal starting with h).
func openJournal(dir string, h journalHeader, end int64) (*journal, error) {
	f, err := os.OpenFile(filepath.Join(dir, journalName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f}
	if err := f.Truncate(end); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	if end == 0 {
		if err := j.write(journalLine{Header: &h}); err != nil {
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

func (j *journal) write(lines ...journalLine) error {
	var b []byte
	for _, l := range lines {
		data, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b = append(append(b, data...), '\n')
	}
	// One write per checkpoint: a kill cuts at most its last line, which
	// readJournal drops.
	_, err := j.f.Write(b)
	return err
}

// checkpoint commits the store (w may be nil before the first building)
// and records the pending files as done.
func (j *journal) checkpoint(imp *lod2Import, files int) error {
	cp := &journalCheckpoint{Files: files}
	if imp.w != nil {
		st, err := imp.w.Checkpoint(imp.ctx)
		if err != nil {
			return err
		}
		cp.Writer = &st
	}
	lines := make([]journalLine, 0, len(j.pending)+1)
	for i := range j.pending {
		lines = append(lines, journalLine{File: &j.pending[i]})
	}
	lines = append(lines, journalLine{Checkpoint: cp})
	if err := j.write(lines...); err != nil {
		return fmt.Errorf("importer: journal: %w", err)
	}
	j.pending, j.since = j.pending[:0], 0
	if files > 0 {
		imp.kept = true
	}
	return nil
}

func (j *journal) close() {
	if j != nil && j.f != nil {
		j.f.Close()
	}
}

// restore takes over what the journal says of the finished files and
// reopens the store; it returns the index of the first file to import.
func (imp *lod2Import) restore(r resumed) (int, error) {
	for i, f := range r.files {
		if i >= len(imp.inputs) || imp.inputs[i].Name != f.Name || imp.inputs[i].Size != f.Size {
			return 0, fmt.Errorf("%w: --resume: input %d is not the interrupted import's %s (%d bytes); give the same paths or import without --resume to start over",
				ErrOptions, i+1, f.Name, f.Size)
		}
	}
	if r.writer == nil {
		// Killed before the first building reached a checkpoint.
		for _, f := range []string{LoD2File, LoD2File + ".spool", LoD2File + "-journal"} {
			if err := os.Remove(filepath.Join(imp.dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return 0, err
			}
		}
	} else {
		w, err := lod2store.ResumeLoD2(imp.ctx, filepath.Join(imp.dir, LoD2File), *r.writer)
		if err != nil {
			return 0, err
		}
		imp.w, imp.epsg = w, r.writer.EPSG
	}
	for _, f := range r.files {
		imp.replay(f)
	}
	return len(r.files), nil
}

// replay adds a journaled file to the summary, checks and counters.
func (imp *lod2Import) replay(f journalFile) {
	if f.Bad != "" {
		imp.bad = append(imp.bad, BadFile{Name: f.Name, Reason: f.Bad})
		imp.badFiles.Add(1)
	}
	for _, d := range f.Invalid {
		imp.invalid = append(imp.invalid, d.ID)
		imp.invalidDetail = append(imp.invalidDetail, d)
	}
	for _, s := range f.Skipped {
		imp.skipped = append(imp.skipped, s[0])
		imp.skippedAt = append(imp.skippedAt, s[1])
	}
	for code, n := range f.Prefixes {
		imp.addPrefix(code, n, f.Example[code])
	}
	if f.Tally != nil {
		imp.place.addTally(f.Name, bl.RestoreTally(imp.st, bl.BorderMarginM, *f.Tally))
	}
	imp.files.Add(1)
	imp.bytes.Add(f.Size)
	imp.written.Add(f.Handled)
}

// journalEntry describes the file just written: invalid and skipped from
// the given positions of the summary lists on are its.
func (imp *lod2Import) journalEntry(res *fileResult, inv, skip int, prefixes map[string]int, example map[string]string) journalFile {
	f := journalFile{I: res.idx, Name: res.in.Name, Size: res.in.Size, SHA256: res.sha256,
		Handled: int64(len(res.blds)), Prefixes: prefixes, Example: example}
	if res.err != nil {
		f.Bad, f.Handled = res.err.Error(), 0
	}
	f.Invalid = append(f.Invalid, imp.invalidDetail[inv:]...)
	for i := skip; i < len(imp.skipped); i++ {
		f.Skipped = append(f.Skipped, [2]string{imp.skipped[i], imp.skippedAt[i]})
	}
	if res.tally != nil {
		c := res.tally.Counts()
		f.Tally = &c
	}
	return f
}
