<?xml version="1.0" encoding="UTF-8"?>
<CityModel xmlns="http://www.opengis.net/citygml/2.0" xmlns:bldg="http://www.opengis.net/citygml/building/2.0" xmlns:g="http://www.opengis.net/gml" xmlns:xlink="http://www.w3.org/1999/xlink">
  <cityObjectMember>
    <bldg:Building g:id="DEBE_2D&amp;1">
      <bldg:boundedBy>
        <bldg:GroundSurface g:id="gs">
          <bldg:lod2MultiSurface>
            <g:MultiSurface srsName="urn:ogc:def:crs:EPSG::25833" srsDimension="2">
              <g:surfaceMember>
                <g:Polygon g:id="p2d">
                  <g:exterior>
                    <g:LinearRing>
                      <g:posList>392000 5820000 392010 5820000 392010 5820010 392000 5820000</g:posList>
                    </g:LinearRing>
                  </g:exterior>
                </g:Polygon>
              </g:surfaceMember>
              <g:surfaceMember>
                <g:Polygon g:id="pcoords">
                  <g:outerBoundaryIs>
                    <g:LinearRing>
                      <g:coordinates>392000,5820000 392010,5820000 392000,5820010 392000,5820000</g:coordinates>
                    </g:LinearRing>
                  </g:outerBoundaryIs>
                </g:Polygon>
              </g:surfaceMember>
            </g:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:GroundSurface>
      </bldg:boundedBy>
    </bldg:Building>
  </cityObjectMember>
  <cityObjectMember>
    <bldg:Building g:id="DEBE_srs_url">
      <bldg:boundedBy>
        <bldg:WallSurface>
          <bldg:lod2MultiSurface>
            <g:MultiSurface srsName="http://www.opengis.net/def/crs/EPSG/0/25833">
              <g:surfaceMember>
                <g:Polygon>
                  <g:exterior>
                    <g:LinearRing>
                      <g:posList>392000 5820000 30 392010 5820000 30 392010 5820000 40 392000 5820000 30</g:posList>
                    </g:LinearRing>
                  </g:exterior>
                </g:Polygon>
              </g:surfaceMember>
            </g:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:WallSurface>
      </bldg:boundedBy>
    </bldg:Building>
  </cityObjectMember>
</CityModel>
