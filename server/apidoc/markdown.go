package apidoc

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"regexp"
	"strings"
)

// The descriptions in the route table and the OpenAPI document use a small
// Markdown subset: `code`, **bold**, [text](url), paragraphs separated by a
// blank line and "- " list items. markdown renders exactly that subset to
// HTML (after escaping everything), so the docs page shows no raw markup.
var (
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

func markdown(s string) template.HTML {
	var out strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(para, "\n")
		var items, text []string
		for _, l := range lines {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") {
				items = append(items, inline(strings.TrimPrefix(t, "- ")))
			} else if len(items) > 0 {
				items[len(items)-1] += " " + inline(t)
			} else {
				text = append(text, inline(l))
			}
		}
		if len(text) > 0 {
			out.WriteString("<p>" + strings.Join(text, " ") + "</p>")
		}
		if len(items) > 0 {
			out.WriteString("<ul><li>" + strings.Join(items, "</li><li>") + "</li></ul>")
		}
	}
	return template.HTML(out.String()) // built from escaped text only
}

// inline escapes s and renders code spans, bold and links in it.
func inline(s string) string {
	// Code spans first, kept apart so their content is not rendered again.
	var codes []string
	s = mdCode.ReplaceAllStringFunc(s, func(m string) string {
		codes = append(codes, html.EscapeString(m[1:len(m)-1]))
		return fmt.Sprintf("\x00%d\x00", len(codes)-1)
	})
	s = html.EscapeString(s)
	s = mdBold.ReplaceAllString(s, "<b>$1</b>")
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		u, err := url.Parse(html.UnescapeString(p[2]))
		if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") {
			return p[1]
		}
		return `<a href="` + html.EscapeString(u.String()) + `">` + p[1] + "</a>"
	})
	for i, c := range codes {
		s = strings.Replace(s, fmt.Sprintf("\x00%d\x00", i), "<code>"+c+"</code>", 1)
	}
	return s
}
