package cmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-geodata/svc/internal/testtool"
	"github.com/svc-geodata/svc/lod2store"
	"github.com/svc-geodata/svc/pack"
	"github.com/svc-geodata/svc/solarstore"
)

// solarPackFor commits a solar pack for the LoD2 pack lodSnap of bl in
// data whose facets get, per building, share(gmlid) of the best plane's
// annual (1,200 kWh/m²); a building for which share is negative has no
// values. It returns the share by gml:id.
func solarPackFor(t *testing.T, data, bl, lodSnap string, share func(i int) float64) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	lodDir := filepath.Join(data, string(pack.LoD2), bl, lodSnap)
	lm, err := pack.ReadManifest(lodDir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := lod2store.OpenLoD2(ctx, filepath.Join(lodDir, lm.LoD2.File))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := pack.Create(data, pack.Key{Product: pack.Solar, BL: bl, Snapshot: lodSnap})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	const best = 1_200_000
	info := solarstore.Info{LoD2Snapshot: lodSnap, LoD2SHA256: lm.FileSHA256(lm.LoD2.File), Model: "test values",
		Climate: solarstore.Climate{File: "constructed.csv", Source: "test"}, Best: solarstore.Plane{TiltDeg: 35, AnnualWhM2: best}}
	sw, err := solarstore.Create(ctx, filepath.Join(w.Dir(), solarstore.FileName), info)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	i := 0
	err = st.AllBuildingGeometry(ctx, func(bd *lod2store.Building3D) error {
		s := share(i)
		i++
		out[bd.GMLID] = s
		b := solarstore.Building{ID: bd.BuildingID, GMLID: bd.GMLID}
		for _, sf := range bd.Surfaces {
			for part := range sf.Ends {
				if sf.Class == lod2store.ClassRoof && s >= 0 {
					a := int64(s * best)
					b.Facets = append(b.Facets, solarstore.Facet{SurfaceID: sf.SurfaceID, Part: part, AnnualWhM2: a, Unshaded: a})
				}
			}
		}
		return sw.Put(ctx, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, pack.Manifest{LicenseID: "dl-de-zero-2.0",
		Solar: &pack.SolarInfo{File: solarstore.FileName, LoD2Snapshot: lodSnap, LoD2SHA256: info.LoD2SHA256, Model: info.Model}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestViewerColoursRoofsBySolar drives the viewer's 3D tab in headless
// Chromium (SwiftShader) over the tileset of the real NRW LoD2 sample
// built with a solar pack whose roofs are, building by building, very
// good (95 % of the best plane), poor (50 %) or without a value, and
// judges the pixels a person sees when choosing "solar potential":
//   - thousands of pixels turn the very-good yellow and the poor dark
//     blue of the legend's ramp, none of either before;
//   - each sampled pixel of those colours lies on a building of that class
//     (scene.pick at the pixel gives its gml:id), and the roofs of the
//     very good and poor buildings sampled from above show their colour;
//   - the legend names the classes; "none" turns the colours off.
func TestViewerColoursRoofsBySolar(t *testing.T) {
	chromium := testtool.Require(t, "chromium", "apt-get install chromium")
	nrw := testtool.Shared(t, "samples/real/LoD2_32_280_5659_1_NW.gml")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	data := t.TempDir()
	if out, err := run(ctx, "import", "lod2", "--data", data, "--bl", "nrw", "--snapshot", "2026-01-01", "--license", "dl-de-zero-2.0", nrw); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	// The tileset without solar values first (its size for comparison),
	// then with them: the next build rebuilds the leaves.
	leafBytes := func() int64 {
		leaves, _ := filepath.Glob(filepath.Join(data, "buildings", "nrw", "2026-01-01", "tiles", "*.glb"))
		var n int64
		for _, l := range leaves {
			if fi, err := os.Stat(l); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	if out, err := run(ctx, "build", "tileset", "--data", data, "--bl", "nrw"); err != nil {
		t.Fatalf("build tileset: %v\n%s", err, out)
	}
	plainBytes := leafBytes()
	shares := solarPackFor(t, data, "nrw", "2026-01-01", func(i int) float64 {
		return [...]float64{0.95, 0.5, 0.95, 0.5, -1}[i%5]
	})
	if out, err := run(ctx, "build", "tileset", "--data", data, "--bl", "nrw"); err != nil || !strings.Contains(out, "roofs carry the solar values of solar pack 2026-01-01") {
		t.Fatalf("build tileset with a solar pack: %v\n%s", err, out)
	}
	t.Logf("leaves of the NRW sample: %d bytes with solar values, %d without (+%.1f %%)", leafBytes(), plainBytes, 100*float64(leafBytes()-plainBytes)/float64(plainBytes))
	// The official 3D Tiles validator on the real buildings' tileset with
	// solar values, the Khronos glTF validator on its leaves.
	pk := filepath.Join(data, "buildings", "nrw", "2026-01-01")
	if out, err := exec.Command(testtool.TilesValidator(t), filepath.Join(pk, "tileset.json")).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), ": 0 errors") || !strings.Contains(string(out), `"numWarnings": 0`) {
		t.Errorf("3D Tiles validator: %v\n%s", err, out[max(0, len(out)-3000):])
	}
	node := testtool.Node(t, "gltf-validator")
	leaves, _ := filepath.Glob(filepath.Join(pk, "tiles", "*.glb"))
	for _, l := range leaves {
		out, err := exec.Command(node, "../glb/testdata/validate.js", l).Output()
		var rep struct{ Errors, Warnings int }
		if err != nil || json.Unmarshal(out, &rep) != nil || rep.Errors != 0 || rep.Warnings != 0 {
			t.Errorf("glTF validator on %s: %v %s", filepath.Base(l), err, out)
		}
	}
	base := serveInBackground(t, data)
	bctx := headlessChromium(t, ctx, chromium, 1200, 800)
	var pageErrors []string
	chromedp.ListenTarget(bctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			pageErrors = append(pageErrors, e.ExceptionDetails.Error())
		}
	})
	do := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	waitJS := func(what, expr string, limit time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(limit); ; time.Sleep(200 * time.Millisecond) {
			var ok bool
			if err := chromedp.Run(bctx, chromedp.Evaluate(expr, &ok)); err == nil && ok {
				return
			}
			if time.Now().After(deadline) {
				var errs []string
				chromedp.Run(bctx, chromedp.Evaluate(`window.svcViewer ? svcViewer.errors : []`, &errs))
				t.Fatalf("%s: not true after %v: %s (page errors %q %q)", what, limit, expr, errs, pageErrors)
			}
		}
	}
	do("open", chromedp.Navigate(base+"/viewer/"))
	waitJS("map ready", `!!(window.svcViewer && svcViewer.ready)`, time.Minute)
	do("open 3D", chromedp.Click("#tab-globe", chromedp.ByQuery))
	waitJS("globe ready", `!!svcViewer.globeReady`, 90*time.Second)
	drawn := `svcViewer.globeTilesets.some(t => t.svcKind === 'buildings' && t.tilesLoaded && t.statistics.numberOfLoadedTilesTotal > 0)`
	waitJS("buildings drawn", drawn, 60*time.Second)
	do("look down", chromedp.Evaluate(`(() => { const v = svcViewer.globe, t = svcViewer.globeTilesets.find(t => t.svcKind === 'buildings');
		v.camera.viewBoundingSphere(t.boundingSphere, new Cesium.HeadingPitchRange(0, -Math.PI / 2, t.boundingSphere.radius * 1.2));
		v.camera.lookAtTransform(Cesium.Matrix4.IDENTITY); return true; })()`, nil))
	time.Sleep(time.Second)
	waitJS("buildings drawn from above", drawn, 60*time.Second)
	choose := func(v string) {
		t.Helper()
		do("colour by "+v, chromedp.SetValue("#colour-by", v, chromedp.ByQuery),
			chromedp.Evaluate(`document.getElementById('colour-by').dispatchEvent(new Event('change')), true`, nil))
		time.Sleep(500 * time.Millisecond)
		waitJS("restyled", drawn, 60*time.Second)
	}
	// sample renders the globe, counts the pixels near the ramp's very-good
	// yellow and poor blue (hue compared at the pixel's brightness, as
	// TestViewerColoursBuildingsByAttribute does), and picks the building
	// under up to 60 pixels of each colour and under a grid of points.
	type hit struct {
		Gmlid  string
		Colour string // "yellow", "blue" or ""
	}
	type sample struct {
		Yellow, Blue, Total int
		Picked              []hit
	}
	pixels := func(what string) sample {
		t.Helper()
		var s sample
		do(what, chromedp.Evaluate(`(() => {
			const v = svcViewer.globe; v.render();
			const src = v.canvas, cv = document.createElement('canvas'); cv.width = src.width; cv.height = src.height;
			const g = cv.getContext('2d'); g.drawImage(src, 0, 0);
			const d = g.getImageData(0, 0, cv.width, cv.height).data;
			const near = (r, gr, b, ref) => { const s = Math.max(r, gr, b) / Math.max(...ref); if (s < 0.35) return false;
				return Math.hypot(r - ref[0] * s, gr - ref[1] * s, b - ref[2] * s) < 28; };
			const colourAt = (i) => near(d[i], d[i + 1], d[i + 2], [0xf0, 0xf9, 0x21]) ? 'yellow' :
				near(d[i], d[i + 1], d[i + 2], [0x0d, 0x08, 0x87]) ? 'blue' : '';
			const out = {Yellow: 0, Blue: 0, Total: d.length / 4, Picked: []};
			const coloured = {yellow: [], blue: []};
			for (let i = 0; i < d.length; i += 4) {
				const c = colourAt(i);
				if (c === 'yellow') out.Yellow++; else if (c === 'blue') out.Blue++;
				if (c) coloured[c].push(i / 4);
			}
			// Canvas pixels to CSS pixels for scene.pick.
			const k = src.clientWidth / src.width;
			const pickAt = (px) => { const x = px % cv.width, y = Math.floor(px / cv.width);
				const f = v.scene.pick(new Cesium.Cartesian2((x + 0.5) * k, (y + 0.5) * k));
				const id = f instanceof Cesium.Cesium3DTileFeature ? f.getProperty('gmlid') || '' : '';
				out.Picked.push({Gmlid: id, Colour: colourAt(px * 4)}); };
			for (const c of ['yellow', 'blue']) {
				const l = coloured[c], step = Math.max(1, Math.floor(l.length / 60));
				for (let j = 0; j < l.length; j += step) pickAt(l[j]);
			}
			for (let y = Math.floor(cv.height * 0.2); y < cv.height * 0.8; y += 40)
				for (let x = Math.floor(cv.width * 0.2); x < cv.width * 0.8; x += 40) pickAt(y * cv.width + x);
			return out; })()`, &s))
		return s
	}
	plain := pixels("plain pixels")
	choose("solar")
	solar := pixels("solar pixels")
	var legend string
	do("legend", chromedp.Text("#colour-legend", &legend, chromedp.ByQuery))
	choose("none")
	back := pixels("none pixels")
	t.Logf("pixels of %d: yellow/blue plain %d/%d, solar %d/%d, none %d/%d", plain.Total, plain.Yellow, plain.Blue, solar.Yellow, solar.Blue, back.Yellow, back.Blue)
	if solar.Yellow-plain.Yellow < 2000 || solar.Blue-plain.Blue < 2000 {
		t.Errorf("solar: %d more yellow and %d more blue pixels than uncoloured; want >= 2000 each", solar.Yellow-plain.Yellow, solar.Blue-plain.Blue)
	}
	if back.Yellow+back.Blue > plain.Yellow+plain.Blue+200 {
		t.Errorf("none: %d yellow and blue pixels, %d at first", back.Yellow+back.Blue, plain.Yellow+plain.Blue)
	}
	// Every coloured pixel sampled lies on a building of its class; the
	// buildings hit by the grid show their class's colour on most pixels
	// (the rest are walls, seen edge-on from above).
	wantColour := func(share float64) string {
		switch {
		case share >= 0.9:
			return "yellow"
		case share >= 0:
			return "blue"
		}
		return ""
	}
	var wrong, onRoof, roofHits int
	for _, h := range solar.Picked {
		s, ok := shares[h.Gmlid]
		if h.Colour != "" && (!ok || wantColour(s) != h.Colour) {
			wrong++
			t.Logf("a %s pixel on %q (share %v)", h.Colour, h.Gmlid, s)
		}
		if ok && wantColour(s) != "" {
			roofHits++
			if h.Colour == wantColour(s) {
				onRoof++
			}
		}
	}
	t.Logf("%d pixels picked: %d of a colour not its building's; %d of %d on buildings with a value show its colour", len(solar.Picked), wrong, onRoof, roofHits)
	// A pixel on a building's edge may show its neighbour's roof where the
	// pick (at the pixel's position) and the screenshot disagree by a pixel
	// under software rendering: at most 1 % of the picked pixels, while a
	// wrong class would colour whole roofs.
	if float64(wrong) > 0.01*float64(len(solar.Picked)) {
		t.Errorf("%d of %d sampled pixels show another class's colour than their building's (at most 1 %%)", wrong, len(solar.Picked))
	}
	if roofHits < 10 || float64(onRoof) < 0.7*float64(roofHits) {
		t.Errorf("%d of %d grid points on buildings with a value show their class's colour; want >= 70 %% of >= 10", onRoof, roofHits)
	}
	for _, want := range []string{"very good", "poor", "no value", "constructed.csv"} {
		if !strings.Contains(legend, want) {
			t.Errorf("legend %q lacks %q", legend, want)
		}
	}
	if len(pageErrors) > 0 {
		t.Errorf("page errors: %q", pageErrors)
	}
}
