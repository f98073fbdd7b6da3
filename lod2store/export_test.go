package lod2store

// BuildTileFile is buildTileFile for the external tests' benchmarks.
var BuildTileFile = buildTileFile
