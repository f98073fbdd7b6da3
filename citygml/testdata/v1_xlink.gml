<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<CityModel xmlns="http://www.opengis.net/citygml/1.0" xmlns:bldg="http://www.opengis.net/citygml/building/1.0" xmlns:gml="http://www.opengis.net/gml" xmlns:xlink="http://www.w3.org/1999/xlink">
  <gml:boundedBy>
    <gml:Envelope srsName="urn:adv:crs:ETRS89_UTM32*DE_DHHN2016_NH*GCG2016">
      <gml:lowerCorner srsDimension="3">280000.0 5659000.0 30</gml:lowerCorner>
      <gml:upperCorner srsDimension="3">281000.0 5660000.0 50</gml:upperCorner>
    </gml:Envelope>
  </gml:boundedBy>
  <cityObjectMember>
    <bldg:Building gml:id="DENW49AL0000LI95">
      <bldg:lod2Solid>
        <gml:Solid>
          <gml:exterior>
            <gml:CompositeSurface>
              <gml:surfaceMember xlink:href="#roof_1"/>
              <gml:surfaceMember xlink:href="#wall_1"/>
              <gml:surfaceMember xlink:href="#ground_1"/>
              <gml:surfaceMember xlink:href="other.gml#elsewhere"/>
            </gml:CompositeSurface>
          </gml:exterior>
        </gml:Solid>
      </bldg:lod2Solid>
      <bldg:lod2TerrainIntersection>
        <gml:MultiCurve>
          <gml:curveMember>
            <gml:LineString>
              <gml:posList srsDimension="3">280000 5659000 30 280010 5659000 30</gml:posList>
            </gml:LineString>
          </gml:curveMember>
        </gml:MultiCurve>
      </bldg:lod2TerrainIntersection>
      <bldg:boundedBy>
        <bldg:RoofSurface>
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="roof_1">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:pos>280000 5659000 40</gml:pos>
                      <gml:pos>280010 5659000 40</gml:pos>
                      <gml:pos>280010 5659010 40</gml:pos>
                      <gml:pos>280000 5659010 40</gml:pos>
                      <gml:pos>280000 5659000 40</gml:pos>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:RoofSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:WallSurface gml:id="UUID_7f5cffe5-f0ed-4fac-bc57-abe8db0c9df3">
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="wall_1">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3">280000 5659000 30 280010 5659000 30 280010 5659000 40 280000 5659000 40 280000 5659000 30</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
          <bldg:opening>
            <bldg:Window>
              <bldg:lod3MultiSurface>
                <gml:MultiSurface>
                  <gml:surfaceMember>
                    <gml:Polygon>
                      <gml:exterior><gml:LinearRing><gml:posList>0 0 0 1 0 0 1 1 0 0 0 0</gml:posList></gml:LinearRing></gml:exterior>
                    </gml:Polygon>
                  </gml:surfaceMember>
                </gml:MultiSurface>
              </bldg:lod3MultiSurface>
            </bldg:Window>
          </bldg:opening>
        </bldg:WallSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:GroundSurface>
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="ground_1">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3">280000 5659000 30 280000 5659010 30 280010 5659010 30 280010 5659000 30 280000 5659000 30</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:GroundSurface>
      </bldg:boundedBy>
      <bldg:boundedBy>
        <bldg:ClosureSurface>
          <bldg:lod2MultiSurface>
            <gml:MultiSurface>
              <gml:surfaceMember>
                <gml:Polygon gml:id="closure_1">
                  <gml:exterior>
                    <gml:LinearRing>
                      <gml:posList srsDimension="3">280010 5659000 30 280010 5659010 30 280010 5659010 40 280010 5659000 40 280010 5659000 30</gml:posList>
                    </gml:LinearRing>
                  </gml:exterior>
                </gml:Polygon>
              </gml:surfaceMember>
            </gml:MultiSurface>
          </bldg:lod2MultiSurface>
        </bldg:ClosureSurface>
      </bldg:boundedBy>
    </bldg:Building>
  </cityObjectMember>
  <cityObjectMember>
    <bldg:Building gml:id="UUID_d281adfc-4901-0f52-540b-4cc1a9325f82">
      <gml:boundedBy>
        <gml:Envelope srsName="EPSG:25832" srsDimension="3">
          <gml:lowerCorner>280100 5659100 30</gml:lowerCorner>
          <gml:upperCorner>280110 5659110 30</gml:upperCorner>
        </gml:Envelope>
      </gml:boundedBy>
      <bldg:lod2MultiSurface>
        <gml:MultiSurface gml:id="ms_a">
          <gml:surfaceMember>
            <gml:Polygon gml:id="flat_1">
              <gml:exterior>
                <gml:LinearRing>
                  <gml:posList>280100 5659100 35 280110 5659100 35 280110 5659110 35 280100 5659110 35 280100 5659100 35</gml:posList>
                </gml:LinearRing>
              </gml:exterior>
            </gml:Polygon>
          </gml:surfaceMember>
        </gml:MultiSurface>
      </bldg:lod2MultiSurface>
      <bldg:lod2Solid>
        <gml:Solid>
          <gml:exterior>
            <gml:CompositeSurface>
              <gml:surfaceMember xlink:href="#flat_1"/>
              <gml:surfaceMember>
                <gml:OrientableSurface orientation="-">
                  <gml:baseSurface xlink:href="#flat_1"/>
                </gml:OrientableSurface>
              </gml:surfaceMember>
              <gml:surfaceMember xlink:href="other.gml#elsewhere"/>
            </gml:CompositeSurface>
          </gml:exterior>
        </gml:Solid>
      </bldg:lod2Solid>
    </bldg:Building>
  </cityObjectMember>
</CityModel>
