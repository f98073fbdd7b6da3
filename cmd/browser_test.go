package cmd

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// headlessChromium starts the chromium at path with a w x h window and
// SwiftShader WebGL (the map and the globe draw without a GPU) and returns
// its browser context, closed when ctx ends or the test does.
func headlessChromium(t *testing.T, ctx context.Context, path string, w, h int) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(w, h),
		chromedp.Flag("use-angle", "swiftshader"), chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("ignore-gpu-blocklist", true))...)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	return bctx
}

// artefactDir is where a browser test saves its screenshots for a person:
// $SVC_TEST_ARTIFACTS when set, else a temporary directory.
func artefactDir(t *testing.T) string {
	dir := os.Getenv("SVC_TEST_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
