// Package pack defines the on-disk form of a published data product: one
// directory per product, federal state (BL) and snapshot,
//
//	<data>/<product>/<bl>/<snapshot>/manifest.json
//
// and the atomic way importers create one. A pack is self-describing: its
// manifest carries licence, source, counts and the time its import
// finished. A directory is a published pack only when its manifest exists,
// names itself correctly and has import_finished_at set; importers build
// in a dot-directory beside it and rename it into place as the last step,
// so a crash at any point leaves either the old state or the new one.
package pack

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/svc-geodata/svc/bl"
)

// Product names a kind of data pack; its value is also the first path
// segment under the data directory and under the tile host.
type Product string

// The products of SPEC section 1.
const (
	LoD2        Product = "lod2"         // LoD2 buildings, one SpatiaLite file
	Terrain     Product = "terrain"      // DGM1 Cloud-Optimized GeoTIFFs
	TerrainMesh Product = "terrain-mesh" // 3D Tiles terrain mesh
	OSMCover    Product = "osm-cover"    // 3D Tiles land cover themes
	Vegetation  Product = "veg"          // CDSM/TDSM COGs and vegetation 3D Tiles
	Buildings3D Product = "buildings"    // 3D Tiles of LoD2 buildings (the /v1/tilesets records)
	OSM         Product = "osm"          // features of an OpenStreetMap extract, the input of osm-cover
	Solar       Product = "solar"        // precomputed solar irradiation of the roof facets of a LoD2 pack
)

// Products lists every product in a fixed order.
func Products() []Product {
	return []Product{LoD2, Terrain, TerrainMesh, OSMCover, Vegetation, Buildings3D, OSM, Solar}
}

// Static reports whether the product's files are served by the static tile
// host. LoD2 and solar SQLite files are answered through the API only.
func (p Product) Static() bool { return p != LoD2 && p != OSM && p != Solar }

// Valid reports whether p is one of Products.
func (p Product) Valid() bool {
	for _, q := range Products() {
		if p == q {
			return true
		}
	}
	return false
}

// ManifestName is the file name of a pack's manifest.
const ManifestName = "manifest.json"

// Format is the manifest format identifier this build reads and writes.
const Format = "svc-pack/1"

// Sentinel errors of ReadManifest and Create.
var (
	ErrIncomplete = errors.New("pack: import not finished")
	ErrCorrupt    = errors.New("pack: corrupt pack")
	ErrInvalid    = errors.New("pack: invalid pack identity")
)

var snapshotRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// ValidSnapshot reports whether s is a calendar date YYYY-MM-DD.
func ValidSnapshot(s string) bool {
	if !snapshotRE.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// File is one file of a pack with the size it had when the import finished;
// a size mismatch on scan marks the pack corrupt.
type File struct {
	Path string `json:"path"` // slash-separated, relative to the pack directory
	Size int64  `json:"size"`
	// SHA256 is the hex SHA-256 of the file as committed; empty in packs
	// written before checksums (svc verify then checks sizes only).
	SHA256 string `json:"sha256,omitempty"`
}

// Manifest describes a pack. Product-specific details live in the one
// member matching Product.
type Manifest struct {
	Format      string    `json:"format"`
	Product     Product   `json:"product"`
	BL          string    `json:"bl"`
	Snapshot    string    `json:"snapshot"`
	LicenseID   string    `json:"license_id"`
	Name        string    `json:"name,omitempty"`
	SourceURL   string    `json:"source_url,omitempty"`
	SourceName  string    `json:"source_name,omitempty"` // authority or agency
	Attribution string    `json:"attribution,omitempty"` // display string
	CRS         string    `json:"crs,omitempty"`         // e.g. EPSG:25832
	BBoxWGS84   []float64 `json:"bbox_wgs84,omitempty"`  // minLon,minLat,maxLon,maxLat
	// HeightModel names the geoid model whose undulation lifted the 3D
	// content to ellipsoidal heights (3D products); "" for packs built
	// before height models, whose heights are DHHN2016 written as ellipsoidal.
	HeightModel      string     `json:"height_model,omitempty"`
	ImportStartedAt  time.Time  `json:"import_started_at"`
	ImportFinishedAt *time.Time `json:"import_finished_at"`
	Files            []File     `json:"files"`

	LoD2        *LoD2Info        `json:"lod2,omitempty"`
	Terrain     *TerrainInfo     `json:"terrain,omitempty"`
	TerrainMesh *TerrainMeshInfo `json:"terrain_mesh,omitempty"`
	OSMCover    *OSMCoverInfo    `json:"osm_cover,omitempty"`
	Vegetation  *VegetationInfo  `json:"vegetation,omitempty"`
	Tileset     *TilesetInfo     `json:"tileset,omitempty"`
	OSM         *OSMInfo         `json:"osm,omitempty"`
	Solar       *SolarInfo       `json:"solar,omitempty"`
}

// SolarInfo is the manifest part of a solar pack (package solarstore has
// the whole description in its file).
type SolarInfo struct {
	File          string `json:"file"`           // the store, relative
	LoD2Snapshot  string `json:"lod2_snapshot"`  // the LoD2 snapshot whose roof facets it holds
	LoD2SHA256    string `json:"lod2_sha256"`    // that pack's lod2.sqlite
	ClimateFile   string `json:"climate_file"`   // base name of the operator's climate file
	ClimateSHA256 string `json:"climate_sha256"` // and its SHA-256 (or the default climate's identity): a server with another climate computes on demand
	// ClimateFormat is the climate's format: "cmsaf-monthly-means" for the
	// built-in default climate of Germany (ClimateFile ""), else the file's
	// (absent in manifests written before it was added).
	ClimateFormat string `json:"climate_format,omitempty"`
	Model         string `json:"model"`
	Buildings     int64  `json:"buildings"`
	Facets        int64  `json:"facets"`
}

// OSMInfo is the manifest part of an imported OpenStreetMap extract.
type OSMInfo struct {
	File       string         `json:"file"`        // gzip-compressed JSON lines of features, relative
	SourceFile string         `json:"source_file"` // name of the imported .osm.pbf / .osm
	Features   map[string]int `json:"features"`    // per "<theme>/<class>"
	// SkippedRelations and SkippedWays could not be assembled (members or
	// nodes missing from the extract); OutsideExtent lay outside the BL.
	SkippedRelations int `json:"skipped_relations"`
	SkippedWays      int `json:"skipped_ways"`
	OutsideExtent    int `json:"outside_extent"`
	// ClipUTM is the box (minX, minY, maxX, maxY in the pack's CRS) the
	// features were clipped to; the sea theme closes the coastline on it.
	ClipUTM []float64 `json:"clip_utm,omitempty"`
	// Sea is what the import made of the coastline: the sea polygons it
	// wrote (theme "sea" of the features file) and the chains it could not
	// close. Nil for packs without coastline or older than the field (the
	// build then closes the coastline on ClipUTM itself).
	Sea *OSMSea `json:"sea,omitempty"`
}

// OSMSea is what an OSM import made of the coastline; osmdata.Stats
// carries it as the reader found it (the import rounds MaxSnapM to 0.1 m).
type OSMSea struct {
	// Boundary the open chains were closed along: "clip polygon",
	// "header bounds" or "node extent" (the file has neither: the box of
	// the nodes its kept ways use), cut to ClipUTM.
	Boundary string  `json:"boundary"`
	Polygons int     `json:"polygons"`
	AreaM2   float64 `json:"area_m2"`
	// Chains is the number of coastline chains cut to the boundary; Closed
	// of them were closed along it; Snapped chain ends, cut by the extract,
	// were carried to it, at most MaxSnapM metres.
	Chains   int     `json:"chains"`
	Closed   int     `json:"closed"`
	Snapped  int     `json:"snapped"`
	MaxSnapM float64 `json:"max_snap_m"`
	// RoadsInSea of RoadsProbed sampled road and path midpoints (bridges
	// excepted) lie in the sea; more than a tenth means land drawn as sea:
	// a coastline way missing from the extract (Warning says so).
	RoadsInSea  int    `json:"roads_in_sea"`
	RoadsProbed int    `json:"roads_probed"`
	Warning     string `json:"warning,omitempty"`
	// Unclosed chains were left out of the sea, each with its ways, where
	// it stops and why.
	Unclosed []OSMUnclosed `json:"unclosed,omitempty"`
}

// OSMUnclosed is a coastline chain left out of the sea: its ways, where it
// stops (WGS84) and why.
type OSMUnclosed struct {
	Ways   []int64 `json:"ways"`
	Lon    float64 `json:"lon"`
	Lat    float64 `json:"lat"`
	Reason string  `json:"reason"`
}

// LoD2Info is the LoD2 part of a manifest (SPEC 2.1).
type LoD2Info struct {
	File              string   `json:"file"` // the SpatiaLite file, relative
	BuildingCount     int64    `json:"building_count"`
	SurfaceCount      int64    `json:"surface_count"`
	ValidationPassPct *float64 `json:"validation_pass_pct"`
}

// TerrainInfo is the terrain part of a manifest (SPEC 2.7).
type TerrainInfo struct {
	Format        string `json:"format"` // "GeoTIFF (COG)"
	Source        string `json:"source"` // convert+storage-box, mirror or pass-through
	TileCount     int64  `json:"tile_count"`
	VerticalDatum string `json:"vertical_datum"`
	Index         string `json:"index"` // tile index file, relative
}

// TerrainMeshInfo is the terrain-mesh part of a manifest (SPEC 2.8).
type TerrainMeshInfo struct {
	TilesetPath    string    `json:"tileset_path"` // relative path of tileset.json
	TileCount      int64     `json:"tile_count"`
	RTINToleranceM float64   `json:"rtin_tolerance_m"`
	TilingScheme   string    `json:"tiling_scheme"`
	BuiltAt        time.Time `json:"built_at"`
}

// OSMCoverInfo is the OSM cover part of a manifest (SPEC 2.9).
type OSMCoverInfo struct {
	Themes  []Theme   `json:"themes"`
	BuiltAt time.Time `json:"built_at"`
}

// Theme is one 3D Tiles theme of a pack.
type Theme struct {
	Name      string `json:"name"`
	Kind      string `json:"kind,omitempty"` // raster_cog or 3dtiles (vegetation)
	Path      string `json:"path"`           // relative path of tileset.json or the COG directory
	TileCount int64  `json:"tile_count"`
}

// VegetationInfo is the vegetation part of a manifest (SPEC 2.10).
type VegetationInfo struct {
	Themes    []Theme `json:"themes"`
	TileSizeM float64 `json:"tile_size_m"`
	Index     string  `json:"index"` // CDSM/TDSM tile index file, relative
	// BridgeMask records that bridge decks were removed from the CDSM and
	// TDSM with a structure mask (SPEC 4.6).
	BridgeMask bool `json:"bridge_mask"`
}

// TilesetInfo is the building 3D Tiles part of a manifest (SPEC 2.2).
type TilesetInfo struct {
	TilesetID      string    `json:"tileset_id"`
	TilesetPath    string    `json:"tileset_path"`
	TileCount      int64     `json:"tile_count"`
	TotalBytes     int64     `json:"total_bytes"`
	BuildingCount  int64     `json:"building_count"`
	GeneratedAt    time.Time `json:"generated_at"`
	BoundingVolume []float64 `json:"bounding_volume"` // WGS84 minLon,minLat,maxLon,maxLat
}

// Key identifies a pack: product, BL and snapshot.
type Key struct {
	Product  Product
	BL       string
	Snapshot string
}

func (k Key) String() string { return fmt.Sprintf("%s/%s/%s", k.Product, k.BL, k.Snapshot) }

// FileSHA256 returns the recorded SHA-256 of the pack file at path p
// (slash-separated, relative), "" when the file is not listed or was
// listed without one.
func (m Manifest) FileSHA256(p string) string {
	for _, f := range m.Files {
		if f.Path == p {
			return f.SHA256
		}
	}
	return ""
}

// Key returns the identity the manifest claims.
func (m Manifest) Key() Key { return Key{m.Product, m.BL, m.Snapshot} }

// AttributionText is the pack's attribution display string: its own when
// the import set one, else "© <source> (<licence>)" from the BL's authority
// and the licence label.
func (m Manifest) AttributionText() string {
	if m.Attribution != "" {
		return m.Attribution
	}
	src := m.Source()
	label := m.LicenseID
	if l, ok := bl.LookupLicense(m.LicenseID); ok {
		label = l.Label
	}
	return fmt.Sprintf("© %s (%s)", src, label)
}

// Source is the name of the authority the data comes from: the manifest's,
// else the BL's surveying authority, else the BL code.
func (m Manifest) Source() string {
	if m.SourceName != "" {
		return m.SourceName
	}
	if st, ok := bl.Lookup(m.BL); ok {
		return st.SourceName
	}
	return m.BL
}
