package raster

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"slices"
)

// isGeographic reports whether epsg is one of the geographic CRS codes
// WriteCOG may meet; any other code is written as a projected CRS.
func isGeographic(epsg int) bool {
	switch epsg {
	case 4230, 4258, 4267, 4269, 4283, 4314, 4326, 4612, 4617, 4619:
		return true
	}
	return false
}

// ghostHeader returns the structural metadata block and its padding.
func ghostHeader() []byte {
	b := fmt.Appendf(nil, "GDAL_STRUCTURAL_METADATA_SIZE=%06d bytes\n%s", len(ghostArea), ghostArea)
	if len(b)%2 == 1 {
		b = append(b, ' ')
	}
	return b
}

// headerSize returns the size of the TIFF header.
func headerSize(big bool) int {
	if big {
		return 16
	}
	return 8
}

// levelFields returns the IFD entries of level li.
func levelFields(g Grid, lv *wlevel, li int, big bool, comp Compression) []field {
	f := []field{
		longField(tagImageWidth, uint32(lv.width)),
		longField(tagImageLength, uint32(lv.height)),
		shortField(tagBitsPerSample, 32),
		shortField(tagCompression, uint16(comp)),
		shortField(tagPhotometric, 1),
		shortField(tagSamplesPerPixel, 1),
		shortField(tagPlanarConfig, 1),
		shortField(tagPredictor, uint16(PredictorFloat)),
		shortField(tagTileWidth, cogTile),
		shortField(tagTileLength, cogTile),
		offsetField(tagTileOffsets, big, lv.offsets),
		offsetField(tagTileByteCounts, big, lv.sizes),
		shortField(tagSampleFormat, uint16(SampleFloat)),
	}
	if li > 0 {
		f = append(f, longField(tagNewSubfileType, subfileReducedImage))
	}
	if g.Nodata != nil {
		f = append(f, asciiField(tagGDALNodata, nodataString(*g.Nodata)))
	}
	if li == 0 {
		f = append(f, georefFields(g)...)
	}
	return f
}

// georefFields returns the GeoTIFF tags of the grid.
func georefFields(g Grid) []field {
	gt := g.GeoTransform
	var f []field
	if gt[2] == 0 && gt[4] == 0 {
		f = append(f,
			doubleField(tagModelPixelScale, gt[1], -gt[5], 0),
			doubleField(tagModelTiepoint, 0, 0, 0, gt[0], gt[3], 0))
	} else {
		f = append(f, doubleField(tagModelTransform,
			gt[1], gt[2], 0, gt[0], gt[4], gt[5], 0, gt[3], 0, 0, 0, 0, 0, 0, 0, 1))
	}
	keys := [][4]uint16{{keyRasterType, 0, 1, rasterPixelIsArea}}
	if g.EPSG != 0 {
		if isGeographic(g.EPSG) {
			keys = append(keys, [4]uint16{keyModelType, 0, 1, modelGeographic},
				[4]uint16{keyGeographicType, 0, 1, uint16(g.EPSG)})
		} else {
			keys = append(keys, [4]uint16{keyModelType, 0, 1, modelProjected},
				[4]uint16{keyProjectedType, 0, 1, uint16(g.EPSG)})
		}
	}
	slices.SortFunc(keys, func(a, b [4]uint16) int { return int(a[0]) - int(b[0]) })
	dir := []uint16{1, 1, 0, uint16(len(keys))}
	for _, k := range keys {
		dir = append(dir, k[:]...)
	}
	return append(f, shortField(tagGeoKeyDirectory, dir...))
}

// layout assigns tile offsets (smallest overview first, tiles row-major,
// each preceded by a 4-byte size leader and followed by a 4-byte trailer)
// and returns the file size.
func layout(levels []*wlevel, g Grid, big bool) uint64 {
	pos := uint64(headerSize(big) + len(ghostHeader()))
	for li, lv := range levels {
		lv.offsets = make([]uint64, len(lv.tiles))
		lv.sizes = make([]uint64, len(lv.tiles))
		pos += uint64(ifdSize(levelFields(g, lv, li, big, CompressionDeflate), big))
	}
	for li := len(levels) - 1; li >= 0; li-- {
		lv := levels[li]
		for t, data := range lv.tiles {
			if data == nil {
				continue
			}
			lv.offsets[t] = pos + 4
			lv.sizes[t] = uint64(len(data))
			pos += uint64(len(data)) + 8
		}
	}
	return pos
}

// writeFile writes header, ghost area, IFDs and tiles as laid out.
func writeFile(w *bufio.Writer, levels []*wlevel, g Grid, big bool, comp Compression) error {
	le := binary.LittleEndian
	hdr := []byte("II")
	ghost := ghostHeader()
	first := uint64(headerSize(big) + len(ghost))
	if big {
		hdr = le.AppendUint16(hdr, 43)
		hdr = le.AppendUint16(hdr, 8)
		hdr = le.AppendUint16(hdr, 0)
		hdr = le.AppendUint64(hdr, first)
	} else {
		hdr = le.AppendUint16(hdr, 42)
		hdr = le.AppendUint32(hdr, uint32(first))
	}
	buf := append(hdr, ghost...)
	at := first
	for li, lv := range levels {
		fields := levelFields(g, lv, li, big, comp)
		next := uint64(0)
		if li+1 < len(levels) {
			next = at + uint64(ifdSize(fields, big))
		}
		buf = encodeIFD(buf, fields, big, at, next)
		at = next
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("raster: write COG header: %w", err)
	}
	// bufio.Writer errors are sticky: checking the last write suffices.
	var lead, trail [4]byte
	for li := len(levels) - 1; li >= 0; li-- {
		for _, data := range levels[li].tiles {
			if data == nil {
				continue
			}
			le.PutUint32(lead[:], uint32(len(data)))
			trail = [4]byte{}
			copy(trail[4-min(4, len(data)):], data[max(0, len(data)-4):])
			_, _ = w.Write(lead[:])
			_, _ = w.Write(data)
			if _, err := w.Write(trail[:]); err != nil {
				return fmt.Errorf("raster: write COG tile: %w", err)
			}
		}
	}
	return nil
}
