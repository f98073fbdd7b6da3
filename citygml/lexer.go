package citygml

import (
	"bytes"
	"errors"
	"io"
)

// Token kinds returned by lexer.next.
const (
	tokEOF = iota
	tokStart
	tokEnd
	tokText
)

// MaxTokenBytes caps the size of one token (a tag, or a text or CDATA run
// the parser keeps, such as a posList), and so the reader's buffer.
const MaxTokenBytes = 64 << 20

// attr is one attribute of the current start tag; value is raw (entities
// not yet decoded). Both alias the lexer's buffer until the next token.
type attr struct{ name, value []byte }

// lexer is a pull tokenizer for the subset of XML 1.0 that GML needs:
// elements, attributes, character data with the predefined and numeric
// entities, CDATA sections; comments, processing instructions and the
// DOCTYPE are skipped. It works in place on its own buffer: the slices it
// returns are valid until the next call of next.
type lexer struct {
	r    io.Reader
	buf  []byte
	pos  int   // next unread byte
	end  int   // end of valid bytes in buf
	base int64 // stream offset of buf[0]
	eof  bool
	rerr error

	line    int // line number at buf[lineOff]
	lineOff int

	tok       int // start of the current token in buf
	name      []byte
	attrs     []attr
	selfClose bool
	text      []byte
	cdata     bool

	// wantText makes next return character data; otherwise it is skipped
	// without being buffered.
	wantText bool
}

// errIncomplete tells a scanner to load more input and retry.
var errIncomplete = errors.New("incomplete")

// syntaxError is a lexer failure; the Reader adds name and line.
type syntaxError struct {
	err error
	msg string
}

func (e *syntaxError) Error() string { return e.err.Error() + ": " + e.msg }
func (e *syntaxError) Unwrap() error { return e.err }

func synErr(msg string) error { return &syntaxError{ErrSyntax, msg} }

func newLexer(r io.Reader) *lexer {
	return &lexer{r: r, buf: make([]byte, 256<<10), line: 1}
}

// offset returns the number of input bytes consumed.
func (l *lexer) offset() int64 { return l.base + int64(l.pos) }

// lineAt returns the 1-based line number of buf[p].
func (l *lexer) lineAt(p int) int {
	if p >= l.lineOff {
		l.line += bytes.Count(l.buf[l.lineOff:p], []byte{'\n'})
		l.lineOff = p
		return l.line
	}
	return l.line - bytes.Count(l.buf[p:l.lineOff], []byte{'\n'})
}

// more reads more input, first discarding the bytes before the current
// token; it returns how far the token moved in buf. It returns io.EOF at the
// end of the input and ErrTooLarge when one token would exceed MaxTokenBytes.
func (l *lexer) more() (int, error) {
	if l.eof {
		if l.rerr != nil {
			return 0, l.rerr
		}
		return 0, io.EOF
	}
	shift := l.tok
	if shift > 0 {
		l.lineAt(shift)
		copy(l.buf, l.buf[shift:l.end])
		l.end -= shift
		l.pos -= shift
		l.tok = 0
		l.lineOff -= shift
		l.base += int64(shift)
	}
	if l.end == len(l.buf) {
		if len(l.buf) >= MaxTokenBytes {
			return shift, &syntaxError{ErrTooLarge, "token longer than MaxTokenBytes"}
		}
		nb := make([]byte, min(2*len(l.buf), MaxTokenBytes))
		copy(nb, l.buf[:l.end])
		l.buf = nb
	}
	// Fill the buffer completely (or to the end of input), so that a token
	// that spans many small reads (a decompressing reader returns a few KB
	// at a time) is rescanned O(log n) times, not once per read.
	got, empty := 0, 0
	for l.end < len(l.buf) {
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		got += n
		if err != nil {
			l.eof = true
			if !errors.Is(err, io.EOF) {
				l.rerr = err
			}
			break
		}
		if n == 0 {
			if empty++; empty > 100 {
				l.eof, l.rerr = true, io.ErrNoProgress
				break
			}
		}
	}
	if got > 0 {
		return shift, nil
	}
	if l.rerr != nil {
		return shift, l.rerr
	}
	return shift, io.EOF
}

// next scans the next token. At the end of input it returns tokEOF; read
// errors and syntax errors are returned as is.
func (l *lexer) next() (int, error) {
	for {
		l.tok = l.pos
		if l.pos >= l.end {
			if _, err := l.more(); err != nil {
				if err == io.EOF {
					return tokEOF, nil
				}
				return 0, err
			}
			continue
		}
		if l.buf[l.pos] != '<' {
			if !l.wantText {
				if err := l.skipText(); err != nil {
					return 0, err
				}
				continue
			}
			return l.scanText()
		}
		kind, err := l.scanMarkup()
		if err == errIncomplete {
			if _, err := l.more(); err != nil {
				if err == io.EOF {
					return 0, synErr("unexpected end of file inside markup")
				}
				return 0, err
			}
			l.pos = l.tok
			continue
		}
		if err != nil || kind != tokEOF {
			return kind, err
		}
		// kind tokEOF from scanMarkup means "skipped": loop.
	}
}

// skipText discards character data up to the next '<' without buffering it.
func (l *lexer) skipText() error {
	for {
		if i := bytes.IndexByte(l.buf[l.pos:l.end], '<'); i >= 0 {
			l.pos += i
			return nil
		}
		l.pos = l.end
		l.tok = l.end
		if _, err := l.more(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// scanText returns the character data up to the next '<' or the end.
func (l *lexer) scanText() (int, error) {
	from := l.pos
	for {
		if i := bytes.IndexByte(l.buf[from:l.end], '<'); i >= 0 {
			l.text = l.buf[l.tok : from+i]
			l.pos = from + i
			l.cdata = false
			return tokText, nil
		}
		from = l.end
		shift, err := l.more()
		from -= shift
		if err == io.EOF {
			l.text = l.buf[l.tok:l.end]
			l.pos = l.end
			l.cdata = false
			return tokText, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// scanMarkup scans the markup starting at buf[pos] == '<'. It returns
// errIncomplete when the buffer ends first, and tokEOF for markup that is
// skipped (comments, processing instructions, DOCTYPE, unwanted CDATA).
func (l *lexer) scanMarkup() (int, error) {
	b := l.buf[l.pos:l.end]
	if len(b) < 2 {
		return 0, errIncomplete
	}
	switch b[1] {
	case '/':
		return l.scanEndTag(b)
	case '?':
		return l.skipUntil(b, 2, "?>")
	case '!':
		return l.scanBang(b)
	}
	return l.scanStartTag(b)
}

// skipUntil skips markup up to and including the terminator.
func (l *lexer) skipUntil(b []byte, from int, term string) (int, error) {
	i := bytes.Index(b[from:], []byte(term))
	if i < 0 {
		return 0, errIncomplete
	}
	l.pos += from + i + len(term)
	return tokEOF, nil
}

// scanBang handles comments, CDATA sections and the DOCTYPE.
func (l *lexer) scanBang(b []byte) (int, error) {
	switch {
	case bytes.HasPrefix(b, []byte("<!--")):
		return l.skipUntil(b, 4, "-->")
	case bytes.HasPrefix(b, []byte("<![CDATA[")):
		i := bytes.Index(b[9:], []byte("]]>"))
		if i < 0 {
			return 0, errIncomplete
		}
		l.pos += 9 + i + 3
		if !l.wantText {
			return tokEOF, nil
		}
		l.text = b[9 : 9+i]
		l.cdata = true
		return tokText, nil
	case bytes.HasPrefix(b, []byte("<!DOCTYPE")):
		// Skip to the '>' that closes the declaration, past an internal
		// subset in brackets. Entities declared there are not supported.
		depth := 0
		for i := 9; i < len(b); i++ {
			switch b[i] {
			case '[':
				depth++
			case ']':
				depth--
			case '>':
				if depth <= 0 {
					l.pos += i + 1
					return tokEOF, nil
				}
			}
		}
		return 0, errIncomplete
	case len(b) < 9:
		return 0, errIncomplete
	}
	return 0, synErr("unknown markup starting with <!")
}

// scanEndTag scans "</name>".
func (l *lexer) scanEndTag(b []byte) (int, error) {
	i := bytes.IndexByte(b, '>')
	if i < 0 {
		return 0, errIncomplete
	}
	name := b[2:i]
	for len(name) > 0 && isSpace(name[len(name)-1]) {
		name = name[:len(name)-1]
	}
	if len(name) == 0 || !validName(name) {
		return 0, synErr("malformed end tag")
	}
	l.name = name
	l.pos += i + 1
	return tokEnd, nil
}

// validName is a cheap check that rejects names with markup characters or
// whitespace; full XML name rules are not enforced.
func validName(n []byte) bool {
	if c := n[0]; c == '-' || c == '.' || (c >= '0' && c <= '9') {
		return false
	}
	for _, c := range n {
		if c <= ' ' || c == '<' || c == '>' || c == '/' || c == '=' || c == '"' || c == '\'' || c == '&' {
			return false
		}
	}
	return true
}

// scanStartTag scans "<name attr="v" ...>" or "<name .../>".
func (l *lexer) scanStartTag(b []byte) (int, error) {
	i := 1
	for i < len(b) && !isSpace(b[i]) && b[i] != '>' && b[i] != '/' {
		i++
	}
	if i == len(b) {
		return 0, errIncomplete
	}
	name := b[1:i]
	if len(name) == 0 || !validName(name) {
		return 0, synErr("malformed start tag")
	}
	l.attrs = l.attrs[:0]
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i == len(b) {
			return 0, errIncomplete
		}
		switch b[i] {
		case '>':
			l.name, l.selfClose = name, false
			l.pos += i + 1
			return tokStart, nil
		case '/':
			if i+1 == len(b) {
				return 0, errIncomplete
			}
			if b[i+1] != '>' {
				return 0, synErr("malformed start tag")
			}
			l.name, l.selfClose = name, true
			l.pos += i + 2
			return tokStart, nil
		}
		a, n, err := scanAttr(b[i:])
		if err != nil {
			return 0, err
		}
		if len(l.attrs) >= 1024 {
			return 0, synErr("too many attributes")
		}
		l.attrs = append(l.attrs, a)
		i += n
	}
}

// scanAttr scans `name = "value"` at the start of b.
func scanAttr(b []byte) (attr, int, error) {
	i := 0
	for i < len(b) && !isSpace(b[i]) && b[i] != '=' && b[i] != '>' && b[i] != '/' {
		i++
	}
	name := b[:i]
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return attr{}, 0, errIncomplete
	}
	if len(name) == 0 || b[i] != '=' || !validName(name) {
		return attr{}, 0, synErr("malformed attribute")
	}
	i++
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return attr{}, 0, errIncomplete
	}
	q := b[i]
	if q != '"' && q != '\'' {
		return attr{}, 0, synErr("attribute value not quoted")
	}
	j := bytes.IndexByte(b[i+1:], q)
	if j < 0 {
		return attr{}, 0, errIncomplete
	}
	val := b[i+1 : i+1+j]
	if bytes.IndexByte(val, '<') >= 0 {
		return attr{}, 0, synErr("'<' in attribute value")
	}
	return attr{name, val}, i + 2 + j, nil
}
