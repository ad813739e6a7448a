// Package toolkit is the seam through which a scenario's tools are built:
// the contract between the harness and every tool a scenario names in
// setup.tools, the bundled fixtures (package fixtures) and your own alike.
//
// A Factory builds one kind of tool, once per run, from the run's Env
// (workspace, seed, clock, iteration) and the entry's `with:` node; wrap
// your tool in one with NewFactory and hand it to the harness
// (harness.RunOptions.Tools, harness.TestOptions.Tools,
// evalrun.Options.Tools). DecodeWith decodes `with:` strictly into a struct,
// reporting a bad key or value as a *fileerr.Error (WithError) carrying its line; Duration
// is a `with:` duration. Tools that share state beyond files get it from
// Shared, one value per run; a shared value that implements World has its
// State() snapshot put into the golden under state.KEY. A tool that fails
// closed like a tape implements UnusedReporter.
//
//	var lookupOrder = toolkit.NewFactory("lookup_order", "looks an order up (read)",
//		func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
//			store := toolkit.Shared(env, "orders", newStore) // *store implements toolkit.World
//			return tools.New(tools.Spec{Name: name, Description: "Look an order up by id.",
//				Safety: tools.Safety{SideEffects: tools.SideEffectRead, Idempotent: true}}, store.lookup)
//		})
package toolkit
