package evalrun

import (
	"context"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{name: "version", summary: "print the tapeloop module version evalrun was built from", run: runVersion})
}

// modulePath is the tapeloop module, whose version version prints.
const modulePath = "github.com/tapeloop/tapeloop"

// runVersion prints "evalrun VERSION (go GOVERSION)": the tapeloop module's
// version from the binary's build info — the main module's when evalrun is
// built inside it, the dependency's when a main of one's own imports it.
func runVersion(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "version", "evalrun version", "Prints the version of the tapeloop module this binary was built from.")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "evalrun version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintf(e.stdout, "evalrun %s\n", moduleVersion(info, ok))
	return exitOK
}

// moduleVersion finds tapeloop's version in the build info: "(devel)" for a
// build inside the module without version control stamping, "unknown" when
// the binary carries no build info.
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown"
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
	return v + " (" + info.GoVersion + ")"
}
