package otelproof

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Instruction is the agent's system prompt.
const Instruction = "You manage the user's orders. Look an order up before you cancel it."

// Agent answers questions about orders with two tools over its own
// store, traced: a span invoke_agent per request, execute_tool per tool
// call (the model calls are traced by Middleware).
type Agent struct {
	Client      openai.Client
	Instruction string
	Tracer      trace.Tracer
	// Orders is the agent's store: status by order id.
	Orders map[string]string
}

// New returns an agent on a client made of opts, traced by tracer (nil:
// not traced), with a store of two orders.
func New(tracer trace.Tracer, opts ...option.RequestOption) *Agent {
	if tracer == nil {
		tracer = noop.NewTracerProvider().Tracer("")
	}
	return &Agent{Client: openai.NewClient(opts...), Instruction: Instruction, Tracer: tracer,
		Orders: map[string]string{"A7": "shipped", "B2": "pending"}}
}

var tools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name:        "lookup_order",
		Description: openai.String("Look an order up by its id."),
		Parameters:  openai.FunctionParameters{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []string{"id"}},
	}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name:        "cancel_order",
		Description: openai.String("Cancel a pending order."),
		Parameters:  openai.FunctionParameters{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []string{"id"}},
	}),
}

// Run answers request, calling the model and the tools until the model
// answers in text.
func (a *Agent) Run(ctx context.Context, request string) (string, error) {
	ctx, span := a.Tracer.Start(ctx, "invoke_agent orders", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "orders")))
	defer span.End()
	params := openai.ChatCompletionNewParams{
		Model:    "lemon-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.Instruction), openai.UserMessage(request)},
		Tools:    tools,
	}
	for range 8 {
		resp, err := a.Client.Chat.Completions.New(ctx, params)
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			return "", err
		}
		if len(resp.Choices) == 0 {
			return "", errors.New("no choice")
		}
		msg := resp.Choices[0].Message
		params.Messages = append(params.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		for _, call := range msg.ToolCalls {
			params.Messages = append(params.Messages, openai.ToolMessage(a.call(ctx, call.ID, call.Function.Name, call.Function.Arguments), call.ID))
		}
	}
	return "", fmt.Errorf("no answer after 8 model calls")
}

// call runs one tool in an execute_tool span.
func (a *Agent) call(ctx context.Context, id, name, arguments string) string {
	_, span := a.Tracer.Start(ctx, "execute_tool "+name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", name),
		attribute.String("gen_ai.tool.call.id", id), attribute.String("gen_ai.tool.call.arguments", arguments)))
	defer span.End()
	var args struct{ ID string }
	result := ""
	switch err := json.Unmarshal([]byte(arguments), &args); {
	case err != nil:
		result = "error: the arguments are not JSON"
	case a.Orders[args.ID] == "":
		result = "error: no order " + args.ID
	case name == "lookup_order":
		result = "order " + args.ID + " is " + a.Orders[args.ID]
	case name == "cancel_order" && a.Orders[args.ID] == "pending":
		a.Orders[args.ID] = "cancelled"
		result = "order " + args.ID + " cancelled"
	case name == "cancel_order":
		result = "error: order " + args.ID + " is " + a.Orders[args.ID] + ", not pending"
	default:
		result = "error: no tool " + name
	}
	span.SetAttributes(attribute.String("gen_ai.tool.call.result", result))
	return result
}
