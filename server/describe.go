package server

import (
	"github.com/svc-geodata/svc/server/apidoc"
	"github.com/svc-geodata/svc/server/httpapi"
	"github.com/svc-geodata/svc/server/keysadmin"
	"github.com/svc-geodata/svc/server/ogcapi"
)

// describe renders the API's descriptions from the route table and the
// component schemas: the OpenAPI document of every route (/openapi.json),
// the OGC API's own (/ogc/api) and the /docs page.
func (s *Server) describe(comps obj) error {
	version := s.cfg.Version
	if version == "" {
		version = APIVersion
	}
	d := apidoc.Doc{Routes: s.routes, Components: comps, Tags: tags(), BaseURL: s.cfg.BaseURL,
		ErrorsBase: s.cfg.ErrorsBase, Version: version}
	var err error
	if s.openapi, err = d.OpenAPI(apidoc.All, "svc geodata API",
		"German open geodata per federal state: LoD2 buildings, DGM1 terrain, canopy height, 3D Tiles.", apidoc.Decisions); err != nil {
		return err
	}
	od := d
	od.Root = "/ogc"
	if s.ogcOpenAPI, err = od.OpenAPI(func(rt *httpapi.Route) bool { return rt.Surface == ogcAPI },
		"svc geodata: OGC API - Features", "LoD2 building surfaces as OGC API - Features collections.", ogcapi.Desc); err != nil {
		return err
	}
	s.docs, err = d.Handler()
	return err
}

// tags group the operations of the document and the page, in this order.
func tags() []apidoc.Tag {
	return []apidoc.Tag{
		{Name: "Discovery", Description: "Which datasets are published, with licences and attribution."},
		{Name: "Buildings", Description: "LoD2 building surfaces: federated bbox search, detail, roof facets, GLB export."},
		{Name: "Terrain", Description: "DGM1 terrain: point elevation, batches of points and line profiles."},
		{Name: "Vegetation", Description: "Canopy height and crown base."},
		{Name: "Tilesets", Description: "3D Tiles of buildings."},
		{Name: "Keys", Description: "Self-service trial keys."},
		{Name: "Compatibility", Description: "The same data in the API shape of other services, so their clients work unchanged."},
		{Name: ogcapi.Tag, Description: "LoD2 surfaces as OGC API - Features collections for GIS clients (QGIS, GDAL)."},
		{Name: ogcapi.TilesTag, Description: "The building vector tiles and the hillshade map tiles as OGC API - Tiles tilesets (WebMercatorQuad)."},
		{Name: "Admin", Description: "Key management, usage reports, health, dataset reloads. " + keysadmin.AuthDoc},
		{Name: "Tiles", Description: "The static tile host."},
		{Name: "Service", Description: "Health, metrics and this description."},
	}
}
