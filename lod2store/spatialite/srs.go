package spatialite

// srsRow is one row of spatial_ref_sys plus, for real CRSs, its
// spatial_ref_sys_aux row.
type srsRow struct {
	srid, authSRID int
	authName, name string
	proj4, wkt     string
	aux            *srsAux
}

// srsAux mirrors spatial_ref_sys_aux.
type srsAux struct {
	geographic, flipped              int
	spheroid, primeMeridian, datum   string
	projection, unit                 string
	axis1, axis1Dir, axis2, axis2Dir string
}

// spatialRefSys holds the CRSs a svc pack can use, with the exact
// proj4text and srtext (OGC WKT 1) SpatiaLite 5 writes for them (taken from
// its built-in EPSG dataset), plus its two "Undefined" rows -1 and 0.
// Vertical CRSs (DHHN2016 EPSG 7837, DHHN92 EPSG 5783) are deliberately
// absent: SpatiaLite does not list them either, a geometry SRID names the
// horizontal CRS only, and the height system is recorded in the pack's own
// metadata.
var spatialRefSys = []srsRow{
	{
		srid: -1, authName: "NONE", authSRID: -1, name: "Undefined - Cartesian",
		proj4: "",
		wkt:   `Undefined`,
		aux:   nil,
	},
	{
		srid: 0, authName: "NONE", authSRID: 0, name: "Undefined - Geographic Long/Lat",
		proj4: "",
		wkt:   `Undefined`,
		aux:   nil,
	},
	{
		srid: 4258, authName: "epsg", authSRID: 4258, name: "ETRS89",
		proj4: "+proj=longlat +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +no_defs",
		wkt:   `GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6258"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4258"]]`,
		aux:   &srsAux{1, 1, "GRS 1980", "Greenwich", "European_Terrestrial_Reference_System_1989", "none", "degree", "Geodetic latitude", "North", "Geodetic longitude", "East"},
	},
	{
		srid: 4326, authName: "epsg", authSRID: 4326, name: "WGS 84",
		proj4: "+proj=longlat +datum=WGS84 +no_defs",
		wkt:   `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]`,
		aux:   &srsAux{1, 1, "WGS 84", "Greenwich", "WGS_1984", "none", "degree", "Geodetic latitude", "North", "Geodetic longitude", "East"},
	},
	{
		srid: 25832, authName: "epsg", authSRID: 25832, name: "ETRS89 / UTM zone 32N",
		proj4: "+proj=utm +zone=32 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs",
		wkt:   `PROJCS["ETRS89 / UTM zone 32N",GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6258"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4258"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","25832"]]`,
		aux:   &srsAux{0, 0, "GRS 1980", "Greenwich", "European_Terrestrial_Reference_System_1989", "Transverse_Mercator", "metre", "Easting", "East", "Northing", "North"},
	},
	{
		srid: 25833, authName: "epsg", authSRID: 25833, name: "ETRS89 / UTM zone 33N",
		proj4: "+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs",
		wkt:   `PROJCS["ETRS89 / UTM zone 33N",GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],AUTHORITY["EPSG","6258"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4258"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","25833"]]`,
		aux:   &srsAux{0, 0, "GRS 1980", "Greenwich", "European_Terrestrial_Reference_System_1989", "Transverse_Mercator", "metre", "Easting", "East", "Northing", "North"},
	},
}
