package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// fileGen makes the mutants of one file of a type-checked package.
type fileGen struct {
	fset    *token.FileSet
	file    *ast.File
	src     []byte
	name    string // base name
	pkg     *types.Package
	info    *types.Info
	next    *int // the package's last mutant ID
	mutants []*Mutant
	edits   []edit
	// fn is the enclosing function's name while walking it.
	fn   string
	lits int // function literals seen in fn, for their names
	// appends holds, per enclosing function, the targets of x = append(x, ...)
	// statements, in source order.
	appends []appendSite
}

// appendSite is one "x = append(x, ...)" statement.
type appendSite struct {
	stmt   *ast.AssignStmt
	target string
	typ    types.Type
}

func (g *fileGen) off(p token.Pos) int { return g.fset.Position(p).Offset }

func (g *fileGen) text(n ast.Node) string { return string(g.src[g.off(n.Pos()):g.off(n.End())]) }

// textWith returns n's text with the spans of the given nodes replaced, in
// order (they must be in source order and apart).
func (g *fileGen) textWith(n ast.Node, repl ...any) string {
	var b strings.Builder
	at := g.off(n.Pos())
	for i := 0; i < len(repl); i += 2 {
		r := repl[i].(ast.Node)
		b.Write(g.src[at:g.off(r.Pos())])
		b.WriteString(repl[i+1].(string))
		at = g.off(r.End())
	}
	b.Write(g.src[at:g.off(n.End())])
	return b.String()
}

// add records a mutant at node n and returns its ID.
func (g *fileGen) add(kind string, n ast.Node, orig, mut string) int {
	*g.next++
	p := g.fset.Position(n.Pos())
	g.mutants = append(g.mutants, &Mutant{ID: *g.next, Kind: kind, File: g.name, Line: p.Line, Col: p.Column, Func: g.fn, Orig: orig, Mut: mut})
	return *g.next
}

// generate walks the file and returns its mutants and the edits that put
// them in.
func (g *fileGen) generate() {
	for _, d := range g.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			g.fn, g.lits = funcName(d), 0
			g.appends = nil
			g.collectAppends(d.Body)
			g.walkFunc(d.Type, d.Body)
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			g.fn = "var"
			for _, s := range d.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					g.exprs(v, s)
				}
			}
		}
	}
}

// funcName names a declared function as a stack trace does: "f", "T.m",
// "(*T).m".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	switch t := t.(type) {
	case *ast.StarExpr:
		x := t.X
		if ix, ok := x.(*ast.IndexExpr); ok {
			x = ix.X
		}
		if ix, ok := x.(*ast.IndexListExpr); ok {
			x = ix.X
		}
		if id, ok := x.(*ast.Ident); ok {
			return "(*" + id.Name + ")." + d.Name.Name
		}
	case *ast.Ident:
		return t.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// walkFunc walks a function's body: its statements, and a fall-through
// panic after them when the function has results (a removed branch can make
// its end reachable, which the compiler would refuse).
func (g *fileGen) walkFunc(ft *ast.FuncType, body *ast.BlockStmt) {
	before := len(g.edits)
	g.earlyReturn(ft, body)
	g.block(body.List, nil)
	if ft.Results != nil && len(ft.Results.List) > 0 && len(g.edits) > before {
		at := g.off(body.Rbrace)
		g.edits = append(g.edits, edit{start: at, end: at, pre: "\npanic(\"scripts/mutation: a mutant fell through\")\n"})
	}
}

// block walks a statement list; loop is the loop whose body it is, or nil.
func (g *fileGen) block(list []ast.Stmt, loop ast.Node) {
	if loop != nil && len(list) >= 2 {
		last := list[len(list)-1]
		switch last.(type) {
		case *ast.BranchStmt, *ast.ReturnStmt, *ast.LabeledStmt:
		default:
			id := g.add(EarlyContinue, last, g.text(last), "continue; "+g.text(last))
			g.edits = append(g.edits, before(id, g.off(last.Pos()), g.off(last.End()), "continue"))
		}
	}
	for _, s := range list {
		g.stmt(s)
	}
}

// stmt makes the mutants of one statement of a list, and walks into it.
func (g *fileGen) stmt(s ast.Stmt) {
	start, end := g.off(s.Pos()), g.off(s.End())
	switch s := s.(type) {
	case *ast.ExprStmt:
		g.exprs(s.X, s)
		if _, ok := s.X.(*ast.CallExpr); ok {
			id := g.add(StatementRemove, s, g.text(s), "")
			g.edits = append(g.edits, removeStmt(id, start, end))
		}
		if c, ok := s.X.(*ast.CallExpr); ok {
			g.argSwapStmt(s, c)
		}
	case *ast.AssignStmt:
		for _, e := range s.Rhs {
			g.exprs(e, s)
		}
		if s.Tok == token.DEFINE {
			return
		}
		for _, e := range s.Lhs {
			g.exprs(e, s)
		}
		if !allBlank(s.Lhs) {
			id := g.add(StatementRemove, s, g.text(s), "")
			g.edits = append(g.edits, removeStmt(id, start, end))
		}
		g.fieldSwapStmt(s, s.Lhs)
		g.appendWrong(s)
		if len(s.Rhs) == 1 {
			if c, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr); ok {
				g.argSwapStmt(s, c)
			}
		}
	case *ast.IncDecStmt:
		g.exprs(s.X, s)
		id := g.add(StatementRemove, s, g.text(s), "")
		g.edits = append(g.edits, removeStmt(id, start, end))
		g.fieldSwapStmt(s, []ast.Expr{s.X})
	case *ast.SendStmt:
		g.exprs(s.Chan, s)
		g.exprs(s.Value, s)
		id := g.add(StatementRemove, s, g.text(s), "")
		g.edits = append(g.edits, removeStmt(id, start, end))
	case *ast.DeferStmt:
		g.exprs(s.Call, s)
		id := g.add(DeferRemove, s, g.text(s), "")
		g.edits = append(g.edits, removeStmt(id, start, end))
	case *ast.GoStmt:
		g.exprs(s.Call, s)
	case *ast.ReturnStmt:
		for _, e := range s.Results {
			g.exprs(e, s)
		}
		if len(s.Results) == 1 {
			if c, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr); ok {
				g.argSwapStmt(s, c)
			}
		}
	case *ast.DeclStmt:
		if gd, ok := s.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, sp := range gd.Specs {
				for _, v := range sp.(*ast.ValueSpec).Values {
					g.exprs(v, sp)
				}
			}
		}
	case *ast.LabeledStmt:
		g.stmt(s.Stmt)
	case *ast.BlockStmt:
		g.block(s.List, nil)
	case *ast.IfStmt:
		g.ifStmt(s)
	case *ast.ForStmt:
		g.simple(s.Init)
		if s.Cond != nil {
			g.exprs(s.Cond, s)
		}
		g.simple(s.Post)
		g.block(s.Body.List, s)
	case *ast.RangeStmt:
		g.exprs(s.X, s)
		g.block(s.Body.List, s)
	case *ast.SwitchStmt:
		g.simple(s.Init)
		if s.Tag != nil {
			g.exprs(s.Tag, s)
		}
		g.clauses(s.Body)
	case *ast.TypeSwitchStmt:
		g.simple(s.Init)
		g.clauses(s.Body)
	case *ast.SelectStmt:
		g.clauses(s.Body)
	}
}

// simple walks the expressions of a statement in an init or post slot,
// which is not itself mutated (it must stay a simple statement).
func (g *fileGen) simple(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, e := range s.Rhs {
			g.exprs(e, s)
		}
	case *ast.ExprStmt:
		g.exprs(s.X, s)
	}
}

// ifStmt empties its body and its else block, one mutant each.
func (g *fileGen) ifStmt(s *ast.IfStmt) {
	g.simple(s.Init)
	g.exprs(s.Cond, s)
	g.removeBranch(s.Body, "if "+g.text(s.Cond)+" { … }", "if "+g.text(s.Cond)+" {}")
	if eb, ok := s.Else.(*ast.BlockStmt); ok {
		g.removeBranch(eb, "if "+g.text(s.Cond)+" { … } else { … }", "if "+g.text(s.Cond)+" { … } else {}")
	}
	g.block(s.Body.List, nil)
	switch e := s.Else.(type) {
	case *ast.BlockStmt:
		g.block(e.List, nil)
	case *ast.IfStmt:
		g.ifStmt(e)
	}
}

// removeBranch switches the statements of a non-empty block off.
func (g *fileGen) removeBranch(b *ast.BlockStmt, orig, mut string) {
	if len(b.List) == 0 || hasLabel(b.List) {
		return
	}
	id := g.add(BranchRemove, b, orig, mut)
	g.edits = append(g.edits, removeStmt(id, g.off(b.List[0].Pos()), g.off(b.List[len(b.List)-1].End())))
}

// clauses empties each non-empty case of a switch or select, one mutant each.
func (g *fileGen) clauses(body *ast.BlockStmt) {
	for _, c := range body.List {
		var list []ast.Stmt
		var head string
		switch c := c.(type) {
		case *ast.CaseClause:
			for _, e := range c.List {
				g.exprs(e, c)
			}
			list = c.Body
			head = "default:"
			if c.List != nil {
				head = "case " + oneLine(g.textList(c.List)) + ":"
			}
		case *ast.CommClause:
			list = c.Body
			head = "default:"
			if c.Comm != nil {
				head = "case " + oneLine(g.text(c.Comm)) + ":"
			}
		}
		if n := len(list); n > 0 && !hasLabel(list) {
			if br, ok := list[n-1].(*ast.BranchStmt); !ok || br.Tok != token.FALLTHROUGH {
				id := g.add(BranchRemove, c, head+" …", head)
				g.edits = append(g.edits, removeStmt(id, g.off(list[0].Pos()), g.off(list[n-1].End())))
			}
		}
		g.block(list, nil)
	}
}

func (g *fileGen) textList(es []ast.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = g.text(e)
	}
	return strings.Join(parts, ", ")
}

func hasLabel(list []ast.Stmt) bool {
	for _, s := range list {
		if _, ok := s.(*ast.LabeledStmt); ok {
			return true
		}
	}
	return false
}

func allBlank(es []ast.Expr) bool {
	for _, e := range es {
		if id, ok := e.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

// earlyReturn returns before the last step of a function that returns
// nothing or only an error, as if it had done everything.
func (g *fileGen) earlyReturn(ft *ast.FuncType, body *ast.BlockStmt) {
	list := body.List
	ret := "return"
	if ft.Results != nil && len(ft.Results.List) > 0 {
		if len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 || !g.isError(ft.Results.List[0].Type) {
			return
		}
		ret = "return nil"
	}
	if n := len(list); n > 0 {
		if _, ok := list[n-1].(*ast.ReturnStmt); ok {
			list = list[:n-1]
		}
	}
	if len(list) < 2 {
		return
	}
	last := list[len(list)-1]
	switch last.(type) {
	case *ast.BranchStmt, *ast.LabeledStmt, *ast.DeclStmt:
		return
	}
	if a, ok := last.(*ast.AssignStmt); ok && a.Tok == token.DEFINE {
		return
	}
	id := g.add(EarlyReturn, last, g.text(last), ret+"; "+g.text(last))
	g.edits = append(g.edits, before(id, g.off(last.Pos()), g.off(last.End()), ret))
}

func (g *fileGen) isError(t ast.Expr) bool {
	tv, ok := g.info.Types[t]
	return ok && types.Identical(tv.Type, types.Universe.Lookup("error").Type())
}

// exprs walks an expression for the mutants made inside expressions, and
// into function literals.
func (g *fileGen) exprs(root ast.Expr, parent ast.Node) {
	parents := []ast.Node{parent}
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			parents = parents[:len(parents)-1]
			return false
		}
		parent := parents[len(parents)-1]
		switch n := n.(type) {
		case *ast.FuncLit:
			fn, apps := g.fn, g.appends
			g.lits++
			g.fn = fmt.Sprintf("%s.func%d", fn, g.lits)
			g.appends = nil
			g.collectAppends(n.Body)
			g.walkFunc(n.Type, n.Body)
			g.fn, g.appends = fn, apps
			return false // walkFunc walked it
		case *ast.CallExpr:
			g.call(n, parent)
		case *ast.CompositeLit:
			g.fieldSwapLit(n, parent)
		}
		parents = append(parents, n)
		return true
	})
}

// qualifier names packages as the file imports them; ok turns false when
// a type names a package the file does not import.
func (g *fileGen) qualifier(ok *bool) types.Qualifier {
	return func(p *types.Package) string {
		if p == g.pkg {
			return ""
		}
		for _, imp := range g.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path != p.Path() {
				continue
			}
			if imp.Name != nil {
				if imp.Name.Name == "_" || imp.Name.Name == "." {
					break
				}
				return imp.Name.Name
			}
			return p.Name()
		}
		*ok = false
		return p.Name()
	}
}

// typeName returns how the file can write t, and false when it cannot (a
// package it does not import, another package's unexported type).
func (g *fileGen) typeName(t types.Type) (string, bool) {
	ok := nameable(t, g.pkg)
	s := types.TypeString(t, g.qualifier(&ok))
	return s, ok
}

// nameable reports whether t can be written in package pkg.
func nameable(t types.Type, pkg *types.Package) bool {
	switch t := t.(type) {
	case *types.Basic:
		return t.Info()&types.IsUntyped == 0 && t.Kind() != types.UnsafePointer
	case *types.Named:
		o := t.Obj()
		if o.Pkg() != nil && o.Pkg() != pkg && !o.Exported() {
			return false
		}
		if o.Pkg() == pkg && o.Parent() != nil && o.Parent() != pkg.Scope() {
			return false // declared inside a function
		}
		for a := range t.TypeArgs().Types() {
			if !nameable(a, pkg) {
				return false
			}
		}
		return true
	case *types.Alias:
		return nameable(types.Unalias(t), pkg)
	case *types.Pointer:
		return nameable(t.Elem(), pkg)
	case *types.Slice:
		return nameable(t.Elem(), pkg)
	case *types.Array:
		return nameable(t.Elem(), pkg)
	case *types.Map:
		return nameable(t.Key(), pkg) && nameable(t.Elem(), pkg)
	case *types.TypeParam:
		return true
	case *types.Interface:
		return t.Empty()
	}
	return false
}

// pickExpr puts in a mutant replacing expression e by mutated; false when
// its type cannot be written.
func (g *fileGen) pickExpr(kind string, e ast.Expr, mutated string) bool {
	tv, ok := g.info.Types[e]
	if !ok || tv.Type == nil {
		return false
	}
	start, end := g.off(e.Pos()), g.off(e.End())
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsBoolean != 0 && (b.Kind() == types.Bool || b.Kind() == types.UntypedBool) {
		id := g.add(kind, e, g.text(e), mutated)
		g.edits = append(g.edits, pickBool(id, start, end, mutated))
		return true
	}
	name, ok := g.typeName(tv.Type)
	if !ok || containsRecover(e) {
		return false
	}
	id := g.add(kind, e, g.text(e), mutated)
	g.edits = append(g.edits, pickValue(id, start, end, name, mutated))
	return true
}

// containsRecover reports whether e calls recover, which only works called
// directly by a deferred function, not from a closure wrapped around it.
func containsRecover(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" {
				found = true
			}
		}
		return !found
	})
	return found
}

// call makes the mutants of a call expression: unanchored matches, dropped
// trims, and (as a value) swapped arguments.
func (g *fileGen) call(c *ast.CallExpr, parent ast.Node) {
	switch parent.(type) {
	case *ast.ExprStmt, *ast.GoStmt, *ast.DeferStmt:
		return // not a value: swapped as a statement, or not at all
	}
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		if pkgName, ok := g.info.Uses[identOf(sel.X)].(*types.PkgName); ok {
			path := pkgName.Imported().Path()
			name := sel.Sel.Name
			if (path == "strings" || path == "bytes") && len(c.Args) == 2 {
				switch name {
				case "HasPrefix", "HasSuffix":
					g.pickExpr(AnchorRemove, c, g.textWith(c, sel.Sel, "Contains"))
				case "TrimSuffix", "TrimPrefix", "TrimRight", "TrimLeft", "Trim":
					g.pickExpr(TrimRemove, c, g.text(c.Args[0]))
				}
			}
			if (path == "strings" || path == "bytes") && len(c.Args) == 1 && name == "TrimSpace" {
				g.pickExpr(TrimRemove, c, g.text(c.Args[0]))
			}
			if path == "regexp" && (name == "MustCompile" || name == "Compile") && len(c.Args) == 1 {
				g.unanchor(c.Args[0])
			}
		}
	}
	sig, ok := g.signature(c)
	if !ok || sig.Results().Len() != 1 {
		return // several results: swapped as a statement (argSwapStmt)
	}
	for i := range swappable(c, sig, g) {
		g.pickExpr(ArgSwap, c, g.swapped(c, i))
	}
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

// signature returns the signature of the function c calls, false for a
// conversion or a builtin.
func (g *fileGen) signature(c *ast.CallExpr) (*types.Signature, bool) {
	tv, ok := g.info.Types[c.Fun]
	if !ok || tv.IsType() || tv.IsBuiltin() {
		return nil, false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	return sig, ok && c.Ellipsis == token.NoPos
}

// swappable yields each i whose arguments i and i+1 fill parameters of the
// same type (not the variadic one) and are written differently.
func swappable(c *ast.CallExpr, sig *types.Signature, g *fileGen) func(func(int) bool) {
	return func(yield func(int) bool) {
		params := sig.Params()
		for i := 0; i+1 < len(c.Args) && i+1 < params.Len(); i++ {
			if sig.Variadic() && i+1 >= params.Len()-1 {
				return
			}
			if !types.Identical(params.At(i).Type(), params.At(i+1).Type()) {
				continue
			}
			if oneLine(g.text(c.Args[i])) == oneLine(g.text(c.Args[i+1])) {
				continue
			}
			if !yield(i) {
				return
			}
		}
	}
}

// swapped returns c's text with arguments i and i+1 swapped.
func (g *fileGen) swapped(c *ast.CallExpr, i int) string {
	return g.textWith(c, c.Args[i], g.text(c.Args[i+1]), c.Args[i+1], g.text(c.Args[i]))
}

// argSwapStmt swaps the arguments of the call that is s's value, as a
// statement (the call's results are not one value).
func (g *fileGen) argSwapStmt(s ast.Stmt, c *ast.CallExpr) {
	sig, ok := g.signature(c)
	if !ok {
		return
	}
	if _, isExpr := s.(*ast.ExprStmt); !isExpr && sig.Results().Len() == 1 {
		return // a value: swapped as an expression (call)
	}
	for i := range swappable(c, sig, g) {
		mut := g.textWith(s, c, g.swapped(c, i))
		id := g.add(ArgSwap, c, g.text(c), g.swapped(c, i))
		g.edits = append(g.edits, replaceStmt(id, g.off(s.Pos()), g.off(s.End()), mut))
	}
}

// unanchor drops a regexp literal's leading ^ or \A and its trailing $ or
// \z, one mutant each.
func (g *fileGen) unanchor(arg ast.Expr) {
	lit, ok := arg.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return
	}
	val, err := strconv.Unquote(lit.Value)
	if err != nil {
		return
	}
	var muts []string
	for _, p := range []string{"^", `\A`} {
		if strings.HasPrefix(val, p) {
			muts = append(muts, strings.TrimPrefix(val, p))
		}
	}
	for _, s := range []string{"$", `\z`} {
		if strings.HasSuffix(val, s) && !strings.HasSuffix(val, `\`+s) {
			muts = append(muts, strings.TrimSuffix(val, s))
		}
	}
	for _, m := range muts {
		g.pickExpr(AnchorRemove, lit, strconv.Quote(m))
	}
}

// fieldField returns the struct field sel selects directly (not promoted
// through an embedded field) and the struct holding it.
func (g *fileGen) field(sel *ast.SelectorExpr) (*types.Var, *types.Struct) {
	s, ok := g.info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal || len(s.Index()) != 1 {
		return nil, nil
	}
	recv := s.Recv()
	if p, ok := recv.Underlying().(*types.Pointer); ok {
		recv = p.Elem()
	}
	st, ok := recv.Underlying().(*types.Struct)
	if !ok {
		return nil, nil
	}
	return s.Obj().(*types.Var), st
}

// neighbours returns the fields of st nearest f before and after it with
// the same type, that package pkg can use and that skip does not hold.
func neighbours(st *types.Struct, f *types.Var, pkg *types.Package, skip map[string]bool) []*types.Var {
	at := -1
	for i := range st.NumFields() {
		if st.Field(i) == f {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	ok := func(v *types.Var) bool {
		return !v.Embedded() && (v.Exported() || v.Pkg() == pkg) && types.Identical(v.Type(), f.Type()) && !skip[v.Name()] && v.Name() != "_"
	}
	var out []*types.Var
	for i := at - 1; i >= 0; i-- {
		if ok(st.Field(i)) {
			out = append(out, st.Field(i))
			break
		}
	}
	for i := at + 1; i < st.NumFields(); i++ {
		if ok(st.Field(i)) {
			out = append(out, st.Field(i))
			break
		}
	}
	return out
}

// fieldSwapStmt stores an assigned field's value in a neighbouring field of
// the same type instead.
func (g *fileGen) fieldSwapStmt(s ast.Stmt, lhs []ast.Expr) {
	for _, e := range lhs {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		f, st := g.field(sel)
		if f == nil {
			continue
		}
		for _, alt := range neighbours(st, f, g.pkg, nil) {
			mut := g.textWith(s, sel.Sel, alt.Name())
			id := g.add(FieldSwap, sel, g.text(s), mut)
			g.edits = append(g.edits, replaceStmt(id, g.off(s.Pos()), g.off(s.End()), mut))
		}
	}
}

// fieldSwapLit puts a keyed struct literal's value in a neighbouring field
// of the same type that the literal does not set.
func (g *fileGen) fieldSwapLit(lit *ast.CompositeLit, parent ast.Node) {
	if lit.Type == nil {
		return
	}
	tv, ok := g.info.Types[lit]
	if !ok {
		return
	}
	st, ok := tv.Type.Underlying().(*types.Struct)
	if !ok {
		return
	}
	set := map[string]bool{}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				set[id.Name] = true
			}
		}
	}
	var target ast.Expr = lit
	if u, ok := parent.(*ast.UnaryExpr); ok && u.Op == token.AND {
		target = u
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		var f *types.Var
		for i := range st.NumFields() {
			if st.Field(i).Name() == key.Name {
				f = st.Field(i)
			}
		}
		if f == nil {
			continue
		}
		for _, alt := range neighbours(st, f, g.pkg, set) {
			g.pickExpr(FieldSwap, target, g.textWith(target, key, alt.Name()))
		}
	}
}

// collectAppends records the function's "x = append(x, ...)" statements,
// not those of its function literals.
func (g *fileGen) collectAppends(body *ast.BlockStmt) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		a, ok := n.(*ast.AssignStmt)
		if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return true
		}
		c, ok := a.Rhs[0].(*ast.CallExpr)
		if !ok || len(c.Args) < 2 {
			return true
		}
		if b, ok := g.info.Uses[identOf(c.Fun)].(*types.Builtin); !ok || b.Name() != "append" {
			return true
		}
		if oneLine(g.text(c.Args[0])) != oneLine(g.text(a.Lhs[0])) {
			return true
		}
		if t := g.info.TypeOf(a.Lhs[0]); t != nil {
			g.appends = append(g.appends, appendSite{stmt: a, target: oneLine(g.text(a.Lhs[0])), typ: t})
		}
		return true
	})
}

// appendWrong appends to another slice of the same type that the function
// also appends to, the nearest such statement before (else after) this one.
func (g *fileGen) appendWrong(a *ast.AssignStmt) {
	at := -1
	for i, s := range g.appends {
		if s.stmt == a {
			at = i
		}
	}
	if at < 0 {
		return
	}
	me := g.appends[at]
	pick := func(i int) bool {
		o := g.appends[i]
		return o.target != me.target && types.Identical(o.typ, me.typ)
	}
	alt := -1
	for i := at - 1; i >= 0 && alt < 0; i-- {
		if pick(i) {
			alt = i
		}
	}
	for i := at + 1; i < len(g.appends) && alt < 0; i++ {
		if pick(i) {
			alt = i
		}
	}
	if alt < 0 {
		return
	}
	c := a.Rhs[0].(*ast.CallExpr)
	other := g.text(g.appends[alt].stmt.Lhs[0])
	mut := g.textWith(a, a.Lhs[0], other, c.Args[0], other)
	id := g.add(AppendWrong, a, g.text(a), mut)
	g.edits = append(g.edits, replaceStmt(id, g.off(a.Pos()), g.off(a.End()), mut))
}
