<?xml version="1.0" encoding="UTF-8"?>
<!-- CityGML 2.0, compound srsName, a part with only a solid, an OrientableSurface, a hole -->
<core:CityModel xmlns:core="http://www.opengis.net/citygml/2.0"
    xmlns:bldg="http://www.opengis.net/citygml/building/2.0"
    xmlns:gml="http://www.opengis.net/gml" xmlns:xlink="http://www.w3.org/1999/xlink">
  <gml:boundedBy>
    <gml:Envelope srsName="urn:ogc:def:crs,crs:EPSG::25832,crs:EPSG::7837" srsDimension="3">
      <gml:lowerCorner>690000 5330000 500</gml:lowerCorner>
      <gml:upperCorner>690100 5330100 600</gml:upperCorner>
    </gml:Envelope>
  </gml:boundedBy>
  <core:cityObjectMember>
    <bldg:Building gml:id="DEBY_LOD2_4906972">
      <bldg:measuredHeight uom="urn:adv:uom:m">10.0</bldg:measuredHeight>
      <bldg:boundedBy>
        <bldg:GroundSurface gml:id="DEBY_ground">
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="DEBY_ground_poly">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3">690000 5330000 500 690000 5330010 500 690010 5330010 500 690010 5330000 500 690000 5330000 500</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                  <gml:interior>
                    <gml:LinearRing>
                      <gml:posList>690002 5330002 500 690004 5330002 500 690004 5330004 500 690002 5330004 500 690002 5330002 500</gml:posList>
                    </gml:LinearRing>
                  </gml:interior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:GroundSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:RoofSurface gml:id="DEBY_roof">
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="DEBY_roof_poly1">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3">
                        690000 5330000 510 690010 5330000 510
                        690010 5330005 515 690000 5330005 515
                        690000 5330000 510
                      </gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
              <gml:surfaceMember>
                <gml:Polygon gml:id="DEBY_roof_poly2">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3"><![CDATA[690000 5330005 515 690010 5330005 515 690010 5330010 510 690000 5330010 510 690000 5330005 515]]></gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:RoofSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:OuterCeilingSurface gml:id="DEBY_ceiling">
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon>
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList>690000 5330000 505 690001 5330000 505 690001 5330001 505 690000 5330001 505 690000 5330000 505</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:OuterCeilingSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:InteriorWallSurface gml:id="DEBY_interior_skipped">
          <bldg:lod4MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon>
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList>0 0 0 1 0 0 1 1 0 0 0 0</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod4MultiSurface>
        </bldg:InteriorWallSurface>
      </bldg:boundedBy>
      <bldg:consistsOfBuildingPart>
        <bldg:BuildingPart gml:id="DEHE062000013OfY">
          <bldg:lod2Solid>
            <gml:Solid gml:id="solid1">
              <gml:exterior>
                <gml:CompositeSurface>
                  <gml:surfaceMember>
                    <gml:Polygon gml:id="part_poly1">
                      <gml:exterior>
                        <gml:LinearRing>
                          <gml:posList>690020 5330000 500 690030 5330000 500 690030 5330010 500 690020 5330000 500</gml:posList>
                        </gml:LinearRing>
                      </gml:exterior>
                    </gml:Polygon>
                  </gml:surfaceMember>
                  <gml:surfaceMember>
                    <gml:OrientableSurface orientation="-">
                      <gml:baseSurface>
                        <gml:Polygon gml:id="part_poly2">
                          <gml:exterior>
                            <gml:LinearRing>
                              <gml:posList>690020 5330000 510 690030 5330000 510 690030 5330010 510 690020 5330000 510</gml:posList>
                            </gml:LinearRing>
                          </gml:exterior>
                        </gml:Polygon>
                      </gml:baseSurface>
                    </gml:OrientableSurface>
                  </gml:surfaceMember>
                </gml:CompositeSurface>
              </gml:exterior>
            </gml:Solid>
          </bldg:lod2Solid>
        </bldg:BuildingPart>
      </bldg:consistsOfBuildingPart>
    </bldg:Building>
  </core:cityObjectMember>
</core:CityModel>
