package scalegen

// The vocabulary of the generated addresses: German street and place name
// patterns. Street names come in four kinds, drawn per municipality:
//   - the common names every town has (Hauptstraße, Birkenweg, Am
//     Sportplatz), drawn with a Zipf weight by rank so the first ones are
//     in most municipalities;
//   - field and place names (Am Rodebach, Eschkampweg, In der Heide);
//   - persons (Konrad-Adenauer-Straße, Käthe-Kollwitz-Weg);
//   - the neighbouring town (Kölner Straße: "<town>er Straße").
// Together some 45,000 distinct names; a real state of NRW's size has
// tens of thousands (assumed; docs/performance.md).

// commonStreets are frequent German street names, most frequent first.
var commonStreets = []string{
	"Hauptstraße", "Schulstraße", "Gartenstraße", "Bahnhofstraße", "Dorfstraße", "Bergstraße", "Birkenweg",
	"Lindenstraße", "Kirchstraße", "Waldstraße", "Ringstraße", "Schillerstraße", "Goethestraße", "Amselweg",
	"Jahnstraße", "Wiesenweg", "Friedhofstraße", "Buchenweg", "Mühlenweg", "Am Sportplatz", "Feldstraße",
	"Rosenstraße", "Eichenweg", "Finkenweg", "Industriestraße", "Mozartstraße", "Ahornweg", "Kirchweg",
	"Lerchenweg", "Talstraße", "Meisenweg", "Blumenstraße", "Mühlenstraße", "Wiesenstraße", "Beethovenstraße",
	"Drosselweg", "Tulpenweg", "Raiffeisenstraße", "Poststraße", "Marktplatz", "Kirchplatz", "Uhlandstraße",
	"Fliederweg", "Parkstraße", "Friedrichstraße", "Rosenweg", "Lessingstraße", "Am Bahnhof", "Tannenweg",
	"Sonnenstraße", "Bachstraße", "Kiefernweg", "Brückenstraße", "Gartenweg", "Grüner Weg", "Am Markt",
	"Neue Straße", "Alte Straße", "Lange Straße", "Breite Straße", "Kurze Straße", "Hohe Straße",
	"Schlossstraße", "Burgstraße", "Bismarckstraße", "Wilhelmstraße", "Kaiserstraße", "Königstraße",
	"Luisenstraße", "Steinweg", "Sandweg", "Heideweg", "Fasanenweg", "Falkenweg", "Kastanienallee",
	"Lindenallee", "Eichenallee", "Schützenstraße", "Bürgermeister-Schmidt-Straße", "Am Friedhof",
	"An der Kirche", "Auf dem Berg", "Im Winkel", "Zum Sportplatz", "Schulweg", "Kapellenweg", "Südring",
	"Nordring", "Westring", "Ostring", "Mittelstraße", "Querstraße", "Lönsstraße", "Eschenweg", "Erlenweg",
	"Ulmenweg", "Holunderweg", "Weidenweg", "Höhenweg", "Brunnenstraße", "Turmstraße", "Torstraße",
	"Mühlengasse", "Kirchgasse", "Backhausgasse", "Hospitalstraße", "Gänsemarkt", "Rathausplatz",
	"Rheinstraße", "Ruhrstraße", "Emsstraße", "Lippestraße", "Moselstraße", "Weserstraße", "Uferstraße",
	"Hafenstraße", "Deichstraße", "Zechenstraße", "Hüttenstraße", "Glückaufstraße", "Kolpingstraße",
}

// fieldHeads and fieldTails compose field and place names (Rodebach,
// Eschkamp, Brinkheide); the feminine tails take "An der", the others
// "Am".
var (
	fieldHeads = []string{
		"Rode", "Hütten", "Linden", "Esch", "Brink", "Horst", "Kamp", "Siek", "Heide", "Loh", "Mersch", "Wieden",
		"Hagen", "Kley", "Born", "Sand", "Stein", "Holt", "Ort", "Rott", "Hövel", "Beck", "Brüg", "Fuhr", "Kuhl",
		"Pohl", "Wester", "Oster", "Norder", "Süder", "Alten", "Neuen", "Hohen", "Kleinen", "Großen", "Ober",
		"Unter", "Mittel", "Mühlen", "Kirch", "Schaf", "Fuchs", "Hasen", "Dachs", "Eulen", "Krähen", "Rüben",
		"Flachs", "Hanf", "Roggen",
	}
	fieldTails = []string{
		"bach", "berg", "feld", "kamp", "busch", "hof", "graben", "brink", "horst", "siepen", "holz", "stück",
		"garten", "acker", "bruch", "kolk", "heide", "wiese", "mühle", "weide", "kuhle", "delle", "aue", "höhe",
	}
	feminineTails = map[string]bool{"heide": true, "wiese": true, "mühle": true, "weide": true, "kuhle": true, "delle": true, "aue": true, "höhe": true}
	// fieldForms: how a field name becomes a street; "%s" is the name.
	fieldForms = []string{"Am %s", "Auf dem %s", "Im %s", "Zum %s", "%sweg", "%sstraße", "%sring", "%spfad"}
	femForms   = []string{"An der %s", "In der %s", "Zur %s", "Auf der %s", "%sweg", "%sstraße", "%sring", "%spfad"}
)

// Persons of street names: given names and surnames.
var (
	givenNames = []string{
		"Konrad", "Friedrich", "Karl", "Heinrich", "Wilhelm", "Otto", "Max", "Clara", "Sophie", "Bertha", "Käthe",
		"Hedwig", "Gustav", "Ludwig", "Anne", "Rosa", "Theodor", "Hermann", "Walther", "Elisabeth", "Johannes",
		"Maria", "Josef", "Albert", "Ernst", "Paul", "Hans", "Lise", "Marie", "Fritz", "Agnes", "Emil", "August",
		"Adolph", "Gerhart", "Annette", "Helene", "Jakob", "Peter", "Dietrich",
	}
	surnames = []string{
		"Adenauer", "Ebert", "Heuss", "Brandt", "Schumacher", "Lübke", "Böll", "Zetkin", "Luxemburg", "Stresemann",
		"Rathenau", "Erzberger", "Kolping", "vom Stein", "Hardenberg", "Arndt", "Körner", "Heine", "Droste", "Weber",
		"Planck", "Röntgen", "Diesel", "Benz", "Bosch", "Siemens", "Krupp", "Thyssen", "Müller", "Schmitz", "Becker",
		"Hoffmann", "Schäfer", "Koch", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann",
		"Braun", "Krüger", "Hofmann", "Hartmann", "Lange", "Werner", "Krause", "Lehmann", "Köhler", "Walter",
		"Peters", "König", "Mayer", "Kaiser", "Fuchs", "Jung", "Hahn", "Vogel", "Keller", "Günther", "Frank",
		"Berger", "Winkler", "Roth", "Beck", "Lorenz", "Baumann", "Franke", "Albrecht", "Schuster", "Simon",
		"Böhm", "Winter", "Kraus", "Martin", "Schumann", "Krämer", "Vogt", "Jäger", "Sommer", "Groß", "Seidel",
		"Haas", "Schreiber", "Graf", "Dietrich", "Ziegler", "Kuhn", "Kühn", "Pohl", "Engel", "Horn", "Busch",
		"Bergmann", "Voigt", "Sauer", "Arnold", "Wolff", "Pfeiffer", "Kollwitz", "Meitner", "Lessing", "Kant",
		"Humboldt", "Gauß", "Leibniz", "Euler", "Kepler", "Dürer", "Cranach", "Händel", "Brahms", "Schubert",
		"Liebig", "Koch-Weser", "Scholl", "Stauffenberg", "Bonhoeffer", "Goerdeler", "Ossietzky", "Tucholsky",
		"Hauptmann", "Fontane", "Storm", "Raabe", "Busch-Kaiser", "Spee", "Galen", "Ketteler", "Bodelschwingh",
		"Harkort", "Stinnes", "Haniel", "Henkel", "Oetker", "Miele", "Bertelsmann", "Claas", "Vorwerk", "Beuys",
		"Macke", "Nolde", "Marc", "Münter", "Kandinsky", "Klee", "Ernst-Ludwig", "Grabbe", "Freiligrath", "Weerth",
	}
	personForms = []string{"%s-Straße", "%s-Straße", "%s-Straße", "%s-Weg", "%s-Allee", "%s-Platz", "%s-Ring"}
)

// Place names: an optional head, a stem and a tail (Bad Rodenkirchen,
// Neuhütten, Wupperfeld), variants with a river (an der Ruhr) or a
// region (Westf.).
var (
	townHeads = []string{"Bad ", "Alt", "Neu", "Ober", "Nieder", "Groß", "Klein", "Hohen", "Sankt ", "Nord", "Süd"}
	townStems = []string{
		"Rode", "Esch", "Wester", "Hütten", "Lin", "Bröl", "Kirch", "Wald", "Mühl", "Holz", "Stein", "Kal", "Ham",
		"Lüd", "Wer", "Dül", "Bor", "Rhein", "Ems", "Lipp", "Ruhr", "Sieg", "Wupper", "Erft", "Ahr", "Ober",
		"Hers", "Gel", "Lan", "Dör", "Bü", "Ker", "Mon", "Mett", "Ratin", "Vel", "Wülf", "Hal", "Brak", "Schwel",
	}
	townTails = []string{
		"hausen", "heim", "dorf", "berg", "bach", "feld", "kirchen", "born", "rode", "stadt", "ingen", "beck",
		"hagen", "brück", "burg", "scheid", "kamp", "loh", "horst", "hövel", "bruch", "wald", "holt", "rath",
	}
	townVariants = []string{" an der Ruhr", " (Westf.)", " (Rhld.)", " am Rhein", " an der Sieg"}
)
