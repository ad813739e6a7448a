package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// schemata is a package rewritten to hold all its mutants at once, each
// switched on by its ID (mutant schemata: one build for every mutant).
type schemata struct {
	dir     string    // the package's folder, absolute
	mutants []*Mutant // in source order; the ID of mutants[i] is i+1 before any was dropped
	files   map[string]string
	// dropped counts mutants left out because the rewritten package did not
	// compile with them (a name not in scope at that place, say).
	dropped int
}

// load type-checks the package in folder pkgDir (relative to the current
// folder, a module root) and rewrites it with every mutant of its Go files
// (not its tests) in.
func load(pkgDir string) (*schemata, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
	}
	// os and strconv: the switch file imports them.
	pkgs, err := packages.Load(cfg, "./"+filepath.ToSlash(pkgDir), "os", "strconv")
	if err != nil {
		return nil, err
	}
	var p *packages.Package
	extra := map[string]*types.Package{}
	for _, q := range pkgs {
		switch q.PkgPath {
		case "os", "strconv":
			extra[q.PkgPath] = q.Types
		default:
			if p != nil {
				return nil, fmt.Errorf("%s: want one package, found %s and %s", pkgDir, p.PkgPath, q.PkgPath)
			}
			p = q
		}
	}
	if p == nil {
		return nil, fmt.Errorf("%s: no package there", pkgDir)
	}
	if len(p.Errors) > 0 {
		return nil, fmt.Errorf("%s: %v", pkgDir, p.Errors[0])
	}
	if len(p.GoFiles) == 0 {
		return nil, fmt.Errorf("%s: no Go files", pkgDir)
	}
	s := &schemata{dir: filepath.Dir(p.GoFiles[0]), files: map[string]string{}}
	next := 0
	edits := map[string][]edit{}
	srcs := map[string][]byte{}
	for i, f := range p.Syntax {
		path := p.CompiledGoFiles[i]
		if !strings.HasSuffix(path, ".go") || filepath.Dir(path) != s.dir {
			continue // generated elsewhere (cgo)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		g := &fileGen{fset: p.Fset, file: f, src: src, name: filepath.Base(path), pkg: p.Types, info: p.TypesInfo, next: &next}
		g.generate()
		s.mutants = append(s.mutants, g.mutants...)
		edits[path] = g.edits
		srcs[path] = src
	}
	slices.SortStableFunc(s.mutants, func(a, b *Mutant) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), cmp.Compare(a.ID, b.ID))
	})
	keys(pkgDir, s.mutants)
	drop := map[int]bool{}
	for round := 0; ; round++ {
		spans := map[string][]span{}
		for path, es := range edits {
			kept := slices.DeleteFunc(slices.Clone(es), func(e edit) bool { return drop[e.id] })
			s.files[path], spans[path] = apply(srcs[path], kept)
		}
		bad, err := check(p, extra, s.files, spans)
		if err != nil {
			return nil, err
		}
		if len(bad) == 0 {
			break
		}
		if round == 20 {
			return nil, fmt.Errorf("%s: the rewritten package still does not compile after %d rounds", pkgDir, round)
		}
		for id := range bad {
			drop[id] = true
		}
	}
	s.mutants = slices.DeleteFunc(s.mutants, func(m *Mutant) bool { return drop[m.ID] })
	s.dropped = len(drop)
	s.files[filepath.Join(s.dir, "zz_tapeloop_mutant.go")] = switchFile(p.Types.Name())
	return s, nil
}

// check type-checks the rewritten files and returns the mutants whose code
// holds an error (the innermost mutant around each error). An error outside
// every mutant's code is the rewriter's fault, and returned.
func check(p *packages.Package, extra map[string]*types.Package, files map[string]string, spans map[string][]span) (map[int]bool, error) {
	fset := token.NewFileSet()
	var asts []*ast.File
	names := slices.Sorted(maps.Keys(files))
	for _, path := range names {
		f, err := parser.ParseFile(fset, path, files[path], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("rewritten %s does not parse: %v", path, err)
		}
		asts = append(asts, f)
	}
	sw, err := parser.ParseFile(fset, "zz_tapeloop_mutant.go", switchFile(p.Types.Name()), 0)
	if err != nil {
		return nil, err
	}
	asts = append(asts, sw)
	bad := map[int]bool{}
	var outside error
	conf := types.Config{
		Importer: importer(p, extra),
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				return
			}
			pos := te.Fset.Position(te.Pos)
			id := innermost(spans[pos.Filename], pos.Offset)
			if id == 0 {
				if outside == nil {
					outside = fmt.Errorf("the rewritten package does not compile outside any mutant: %v", err)
				}
				return
			}
			bad[id] = true
		},
	}
	conf.Check(p.PkgPath, fset, asts, nil)
	if outside != nil && len(bad) == 0 {
		return nil, outside
	}
	return bad, nil
}

// innermost returns the ID of the narrowest span holding offset, 0 if none.
func innermost(spans []span, offset int) int {
	id, width := 0, -1
	for _, s := range spans {
		if s.start <= offset && offset < s.end && (width < 0 || s.end-s.start < width) {
			id, width = s.id, s.end-s.start
		}
	}
	return id
}

// importer imports the packages p imports, and extra, already type-checked.
func importer(p *packages.Package, extra map[string]*types.Package) types.Importer {
	return importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if t, ok := extra[path]; ok {
			return t, nil
		}
		if ip, ok := p.Imports[path]; ok && ip.Types != nil {
			return ip.Types, nil
		}
		return nil, fmt.Errorf("package %s is not imported by %s", path, p.PkgPath)
	})
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// writeOverlay writes the rewritten files under dir and the go command's
// overlay file naming them, and returns the overlay file's path.
func (s *schemata) writeOverlay(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, text := range s.files {
		out := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
			return "", err
		}
		replace[path] = out
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	ov := filepath.Join(dir, "overlay.json")
	return ov, os.WriteFile(ov, b, 0o644)
}
