<?xml version="1.0" encoding="UTF-8"?>
<!-- Attributes of LoD2-DE in CityGML 1.0: codeSpace, uom, storeys, two addresses
     (one with postcode), generic attributes of every kind, a generic attribute set,
     a nested BuildingPart, an invalid height. -->
<core:CityModel xmlns:core="http://www.opengis.net/citygml/1.0" xmlns:bldg="http://www.opengis.net/citygml/building/1.0"
  xmlns:gen="http://www.opengis.net/citygml/generics/1.0" xmlns:gml="http://www.opengis.net/gml"
  xmlns:xAL="urn:oasis:names:tc:ciq:xsdschema:xAL:2.0">
  <gml:boundedBy><gml:Envelope srsName="urn:adv:crs:ETRS89_UTM32*DE_DHHN2016_NH"><gml:lowerCorner>691000 5334000 500</gml:lowerCorner><gml:upperCorner>691010 5334010 512</gml:upperCorner></gml:Envelope></gml:boundedBy>
  <core:cityObjectMember>
    <bldg:Building gml:id="DEBY_A1">
      <gml:name>ignored</gml:name>
      <core:creationDate> 2021-03-04 </core:creationDate>
      <gen:stringAttribute name="Gemeindeschluessel"><gen:value>09162000</gen:value></gen:stringAttribute>
      <gen:intAttribute name="DatenquelleDachhoehe"><gen:value>1000</gen:value></gen:intAttribute>
      <gen:doubleAttribute name="HoeheDach"><gen:value>12.5</gen:value></gen:doubleAttribute>
      <gen:dateAttribute name="Grundrissaktualitaet"><gen:value>2019-05-01</gen:value></gen:dateAttribute>
      <gen:uriAttribute name="Quelle"><gen:value>https://example.org/a?b=1&amp;c=2</gen:value></gen:uriAttribute>
      <gen:measureAttribute name="Traufhoehe"><gen:value uom="urn:adv:uom:m">7.25</gen:value></gen:measureAttribute>
      <gen:genericAttributeSet name="Set"><gen:stringAttribute name="InSet"><gen:value>x</gen:value></gen:stringAttribute></gen:genericAttributeSet>
      <bldg:function codeSpace="http://www.sig3d.org/codelists/standard/building/2.0/_AbstractBuilding_function.xml">31001_1000</bldg:function>
      <bldg:function>31001_2020</bldg:function>
      <bldg:roofType codeSpace="urn:adv:roofType">3100</bldg:roofType>
      <bldg:measuredHeight uom="urn:adv:uom:m">11.75</bldg:measuredHeight>
      <bldg:storeysAboveGround>3</bldg:storeysAboveGround>
      <bldg:boundedBy><bldg:GroundSurface gml:id="G1"><core:creationDate>1999-01-01</core:creationDate><bldg:lod2MultiSurface><gml:MultiSurface><gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing>
        <gml:posList srsDimension="3">691000 5334000 500 691000 5334010 500 691010 5334010 500 691010 5334000 500 691000 5334000 500</gml:posList>
      </gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface></bldg:lod2MultiSurface></bldg:GroundSurface></bldg:boundedBy>
      <bldg:consistsOfBuildingPart>
        <bldg:BuildingPart gml:id="DEBY_A1_P1">
          <bldg:function>31001_2463</bldg:function>
          <bldg:measuredHeight uom="urn:adv:uom:m">three</bldg:measuredHeight>
          <bldg:storeysAboveGround>-2</bldg:storeysAboveGround>
          <bldg:consistsOfBuildingPart>
            <bldg:BuildingPart gml:id="DEBY_A1_P1_P1">
              <bldg:roofType>1000</bldg:roofType>
              <bldg:address><core:Address><core:xalAddress><xAL:AddressDetails><xAL:Country><xAL:CountryName>Deutschland</xAL:CountryName>
                <xAL:Locality Type="Town"><xAL:LocalityName>München</xAL:LocalityName>
                <xAL:Thoroughfare Type="Street"><xAL:ThoroughfareNumber>1</xAL:ThoroughfareNumber><xAL:ThoroughfareName>Hofgraben</xAL:ThoroughfareName></xAL:Thoroughfare>
                <xAL:PostalCode><xAL:PostalCodeNumber>80539</xAL:PostalCodeNumber></xAL:PostalCode></xAL:Locality></xAL:Country></xAL:AddressDetails></core:xalAddress></core:Address></bldg:address>
            </bldg:BuildingPart>
          </bldg:consistsOfBuildingPart>
        </bldg:BuildingPart>
      </bldg:consistsOfBuildingPart>
      <bldg:address><core:Address><core:xalAddress><xAL:AddressDetails><xAL:Country><xAL:CountryName>Deutschland</xAL:CountryName>
        <xAL:Locality Type="Town"><xAL:LocalityName>München</xAL:LocalityName>
        <xAL:Thoroughfare Type="Street"><xAL:ThoroughfareNumber>7</xAL:ThoroughfareNumber><xAL:ThoroughfareNumber>9</xAL:ThoroughfareNumber><xAL:ThoroughfareName>Alter Hof</xAL:ThoroughfareName></xAL:Thoroughfare>
        <xAL:PostalCode><xAL:PostalCodeNumber>80331</xAL:PostalCodeNumber></xAL:PostalCode></xAL:Locality></xAL:Country></xAL:AddressDetails></core:xalAddress></core:Address></bldg:address>
      <bldg:address><core:Address><core:xalAddress><xAL:AddressDetails><xAL:Country>
        <xAL:Locality Type="Town"><xAL:LocalityName>München</xAL:LocalityName>
        <xAL:Thoroughfare Type="Street"><xAL:ThoroughfareNumber>2a</xAL:ThoroughfareNumber><xAL:ThoroughfareName>Burgstra&#223;e</xAL:ThoroughfareName></xAL:Thoroughfare>
        </xAL:Locality></xAL:Country></xAL:AddressDetails></core:xalAddress></core:Address></bldg:address>
    </bldg:Building>
  </core:cityObjectMember>
  <core:cityObjectMember>
    <bldg:Building gml:id="DEBY_A2"/>
  </core:cityObjectMember>
</core:CityModel>
