package evalrun

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "version", summary: "print the tapeloop module version evalrun was built from", run: runVersion})
}

// modulePath is the tapeloop module, whose version version prints.
const modulePath = "github.com/tapeloop/tapeloop"

// versionDocument is what version --json writes.
type versionDocument struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	Go      string `json:"go"`
}

// runVersion prints "evalrun VERSION (go GOVERSION)": the tapeloop module's
// version from the binary's build info — the main module's when evalrun is
// built inside it, the dependency's when a main of one's own imports it.
func runVersion(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "version", "evalrun version [--json FILE]", "Prints the version of the tapeloop module this binary was built from.")
	var jsonPath string
	addJSONFlag(fs, &jsonPath, `{"module": ..., "version": ..., "go": ...}`)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "evalrun version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	info, ok := debug.ReadBuildInfo()
	v, goVersion := moduleVersion(info, ok)
	if jsonPath != "-" {
		text := "evalrun " + v
		if goVersion != "" {
			text += " (" + goVersion + ")"
		}
		fmt.Fprintln(e.stdout, text)
	}
	doc := &versionDocument{Module: modulePath, Version: v, Go: goVersion}
	if err := writeJSONOutput(e, jsonPath, func(w io.Writer) error { return report.WriteJSON(w, doc) }); err != nil {
		fmt.Fprintf(e.stderr, "evalrun version: --json: %v\n", err)
		return exitUsage
	}
	return exitOK
}

// moduleVersion finds tapeloop's version in the build info and the Go
// version it was built with: "(devel)" for a build inside the module
// without version control stamping, "unknown" and "" when the binary
// carries no build info.
func moduleVersion(info *debug.BuildInfo, ok bool) (version, goVersion string) {
	if !ok || info == nil {
		return "unknown", ""
	}
	v := ""
	if info.Main.Path == modulePath {
		v = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == modulePath {
			v = d.Version
			if d.Replace != nil {
				v = d.Replace.Version
			}
		}
	}
	if v == "" {
		v = "unknown"
	}
	return v, info.GoVersion
}
