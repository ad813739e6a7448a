// Package tools is the tool contract and the registry, the single dispatch point
// through which every tool call is executed.
//
// A Tool has a Spec (name, description, parameters schema, safety, execution mode,
// loop-breaking, timeout) and an Execute method that returns a *Result. A failure
// the model should read is a Result with a Failure of one of the FailureKinds; a
// plain Go error from Execute becomes KindFailed, a *tools.Error keeps its kind.
// Results carry Effects, typed records of what a call changed.
//
// New builds a tool from a typed function, inferring its schema:
//
//	type addArgs struct {
//		A int `json:"a"`
//		B int `json:"b"`
//	}
//	add := tools.MustNew(tools.Spec{Name: "add", Description: "Adds two integers."},
//		func(ctx context.Context, in addArgs) (*tools.Result, error) {
//			return tools.Success(strconv.Itoa(in.A + in.B)), nil
//		})
//	reg := tools.NewRegistry(&tools.RegistryOptions{Repairer: repair.Cascade{}})
//	reg.MustRegister(add)
//	ex := reg.Execute(ctx, llm.ToolCall{ID: "1", Name: "add", Arguments: `{"a": "2", "b": 3,}`})
//	// ex.Result.Content == "5"; ex.Repairs == [trailing_comma];
//	// ex.Coercions == [{/a string integer}]
//
// Registry.Execute (and Snapshot.Prepare followed by Prepared.Run, which the
// agent loop uses to add hooks, retries and timeouts between the two) turns an
// unknown name into a not_found result naming the available tools, an
// unavailable tool into an unavailable result with its reason, unparseable
// arguments into a repair attempt and, failing that, a validation result; it
// coerces common model mistakes ("3" for 3, "true" for true, an object passed as
// a JSON string) and reports them, reports every schema violation by path in one
// validation result, and recovers a panicking tool into a panic result.
//
// # Safety
//
// A Spec's Safety tells the loop what it may assume. Left zero, it assumes
// the worst: the tool may change the world, so its calls run alone (after
// every earlier call of the batch, before every later one), are never
// memoised and are never retried. Declare what is true:
//
//	Safety{}                                          runs alone; no memo; no retry
//	Safety{SideEffects: SideEffectRead}               runs beside others; no memo; no retry
//	Safety{SideEffects: SideEffectRead, Pure: true,
//	       Idempotent: true}                          runs beside others; memoised; retried
//	Safety{SideEffects: SideEffectWrite, Idempotent: true}  runs alone; no memo; retried
//	Safety{SideEffects: SideEffectExternal}           runs alone; no memo; no retry
//
// Memoised means within one run, with agent.Options.Memoize; retried means
// after a transient failure, with agent.Options.Retry.
package tools
