// Package bedrock is the provider of Amazon Bedrock's Converse API, on the
// official AWS SDK for Go v2 (aws-sdk-go-v2's bedrockruntime). It registers
// "bedrock" with package llm:
//
//	model, err := llm.Open(ctx, "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil)
//
// The credentials are AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN (no shared config or profile is read); the region
// AWS_REGION, else AWS_DEFAULT_REGION; the endpoint OpenOptions.BaseURL,
// else AWS_ENDPOINT_URL_BEDROCK_RUNTIME, else the region's. Each call is
// one Converse request (not streamed). A bridged agent's Converse request
// is forwarded as the agent sent it (see wire.Forward), signed anew with
// these credentials (SigV4).
package bedrock

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithy "github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpopts"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// The provider's name and the environment variables it reads.
const (
	ProviderName = "bedrock"
	// KeyIDEnv, SecretEnv and TokenEnv hold the credentials.
	KeyIDEnv  = "AWS_ACCESS_KEY_ID"
	SecretEnv = "AWS_SECRET_ACCESS_KEY"
	TokenEnv  = "AWS_SESSION_TOKEN"
	// RegionEnv is read for the region, then AltRegionEnv.
	RegionEnv    = "AWS_REGION"
	AltRegionEnv = "AWS_DEFAULT_REGION"
	// BaseURLEnv is read when OpenOptions.BaseURL is empty.
	BaseURLEnv = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
)

func init() {
	llm.Register(ProviderName, llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return New(model, opts)
	}))
}

// Model is a Bedrock model called through Converse. It is safe for
// concurrent use.
type Model struct {
	client *bedrockruntime.Client
	model  string
	opts   llm.OpenOptions
	creds  aws.Credentials
	region string
	base   string // the endpoint; empty for the region's
	// http is opts.HTTPClient as the *http.Client it is; nil means none.
	http *http.Client
}

// New returns the model named model (a model id, an inference profile or
// an ARN). A nil opts is the zero llm.OpenOptions. Missing credentials or
// region are an error naming the variable, before any request. The SDK's
// own retries are off (the agent's retry policy decides).
func New(model string, opts *llm.OpenOptions) (*Model, error) {
	if opts == nil {
		opts = &llm.OpenOptions{}
	}
	creds := aws.Credentials{AccessKeyID: opts.Env(KeyIDEnv), SecretAccessKey: opts.Env(SecretEnv), SessionToken: opts.Env(TokenEnv), Source: "tapeloop"}
	if opts.APIKey != "" {
		// KEY_ID:SECRET, for callers that pass one string.
		id, secret, _ := strings.Cut(opts.APIKey, ":")
		creds.AccessKeyID, creds.SecretAccessKey = id, secret
	}
	if creds.AccessKeyID == "" || creds.SecretAccessKey == "" {
		return nil, fmt.Errorf("%w: set %s and %s", llm.ErrMissingKey, KeyIDEnv, SecretEnv)
	}
	region := cmp.Or(opts.Env(RegionEnv), opts.Env(AltRegionEnv))
	if region == "" {
		return nil, fmt.Errorf("bedrock: no region: set %s", RegionEnv)
	}
	m := &Model{model: model, opts: *opts, creds: creds, region: region,
		base: strings.TrimRight(cmp.Or(opts.BaseURL, opts.Env(BaseURLEnv)), "/")}
	o := bedrockruntime.Options{
		Region: region, RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }),
	}
	if m.base != "" {
		o.BaseEndpoint = aws.String(m.base)
	}
	hc, err := httpopts.Client(ProviderName, opts)
	if err != nil {
		return nil, err
	}
	if m.http = hc; hc != nil {
		o.HTTPClient = hc
	}
	m.client = bedrockruntime.New(o)
	return m, nil
}

// Name returns "bedrock/MODEL".
func (m *Model) Name() string { return ProviderName + "/" + m.model }

// Generate makes one Converse call; a bridged agent's call (ctx carries
// its request, wire.ForwardedOf) is the agent's own request forwarded.
// Every failure is an *llm.ProviderError.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if fw := wire.ForwardedOf(ctx); fw != nil {
		return m.forward(ctx, fw)
	}
	in, err := m.input(ctx, req)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	out, err := m.client.Converse(ctx, in)
	if err != nil {
		return nil, classify(ctx, err)
	}
	return response(out)
}

// input is req as a Converse request: system messages as system blocks,
// a tool message (and the ones after it) as a user turn of toolResult
// blocks, an assistant message as its reasoning, text and toolUse blocks.
func (m *Model) input(ctx context.Context, req *llm.Request) (*bedrockruntime.ConverseInput, error) {
	ro := llm.RequestOptionsOf(ctx, m.opts.Request)
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(m.model)}
	var pending []types.ContentBlock // tool results waiting for their user turn
	flush := func() {
		if pending != nil {
			in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: pending})
			pending = nil
		}
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			in.System = append(in.System, &types.SystemContentBlockMemberText{Value: msg.Content})
		case llm.RoleTool:
			status := types.ToolResultStatusSuccess
			if msg.IsError {
				status = types.ToolResultStatusError
			}
			pending = append(pending, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
				ToolUseId: aws.String(msg.ToolCallID), Status: status,
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: msg.Content}},
			}})
		case llm.RoleUser:
			if pending != nil {
				pending = append(pending, &types.ContentBlockMemberText{Value: msg.Content})
				flush()
				continue
			}
			in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: msg.Content}}})
		case llm.RoleAssistant:
			flush()
			var blocks []types.ContentBlock
			for _, r := range msg.Reasoning {
				if r.Redacted != "" {
					blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: []byte(r.Redacted)}})
					continue
				}
				rt := types.ReasoningTextBlock{Text: aws.String(r.Text)}
				if r.Signature != "" {
					rt.Signature = aws.String(r.Signature)
				}
				blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: rt}})
			}
			if msg.Content != "" {
				blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
					ToolUseId: aws.String(c.ID), Name: aws.String(c.Name), Input: document.NewLazyDocument(arguments(c.Arguments)),
				}})
			}
			in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleAssistant, Content: blocks})
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q", i, msg.Role)
		}
	}
	flush()
	if len(req.Tools) > 0 {
		tc := &types.ToolConfiguration{}
		for _, t := range req.Tools {
			var schema any = map[string]any{"type": "object"}
			if len(t.Parameters) > 0 {
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, fmt.Errorf("tool %s: its schema: %w", t.Name, err)
				}
			}
			tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
				Name: aws.String(t.Name), Description: aws.String(t.Description),
				InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)},
			}})
		}
		switch c := ro.ToolChoice; c {
		case "", "auto":
		case "required", "any":
			tc.ToolChoice = &types.ToolChoiceMemberAny{}
		default:
			tc.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(c)}}
		}
		in.ToolConfig = tc
	}
	if ro.Temperature != nil || ro.TopP != nil || ro.MaxTokens > 0 || ro.Stop != nil {
		ic := &types.InferenceConfiguration{StopSequences: ro.Stop}
		if ro.Temperature != nil {
			ic.Temperature = aws.Float32(float32(*ro.Temperature))
		}
		if ro.TopP != nil {
			ic.TopP = aws.Float32(float32(*ro.TopP))
		}
		if ro.MaxTokens > 0 {
			ic.MaxTokens = aws.Int32(int32(min(ro.MaxTokens, 1<<30)))
		}
		in.InferenceConfig = ic
	}
	return in, nil
}

// arguments is a call's arguments as a document value: the JSON they hold,
// or their text when they are not JSON.
func arguments(args string) any {
	var v any
	if args == "" || json.Unmarshal([]byte(args), &v) != nil {
		if args == "" {
			return map[string]any{}
		}
		return args
	}
	return v
}

// response is the llm.Response of a Converse output.
func response(out *bedrockruntime.ConverseOutput) (*llm.Response, error) {
	mo, ok := out.Output.(*types.ConverseOutputMemberMessage)
	if !ok {
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ProviderName, Message: "the answer holds no message"}
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, b := range mo.Value.Content {
		switch b := b.(type) {
		case *types.ContentBlockMemberText:
			msg.Content += b.Value
		case *types.ContentBlockMemberReasoningContent:
			switch r := b.Value.(type) {
			case *types.ReasoningContentBlockMemberReasoningText:
				msg.Reasoning = append(msg.Reasoning, llm.Reasoning{Text: aws.ToString(r.Value.Text), Signature: aws.ToString(r.Value.Signature)})
			case *types.ReasoningContentBlockMemberRedactedContent:
				msg.Reasoning = append(msg.Reasoning, llm.Reasoning{Redacted: string(r.Value)})
			}
		case *types.ContentBlockMemberToolUse:
			args, err := inputJSON(b.Value.Input)
			if err != nil {
				return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ProviderName, Message: "a tool use's input: " + err.Error(), Err: err}
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: aws.ToString(b.Value.ToolUseId), Name: aws.ToString(b.Value.Name), Arguments: args})
		}
	}
	resp := &llm.Response{Message: msg, FinishReason: wire.BedrockFinishReason(string(out.StopReason))}
	if u := out.Usage; u != nil {
		read, write := int(aws.ToInt32(u.CacheReadInputTokens)), int(aws.ToInt32(u.CacheWriteInputTokens))
		resp.Usage = llm.Usage{InputTokens: int(aws.ToInt32(u.InputTokens)) + read + write, OutputTokens: int(aws.ToInt32(u.OutputTokens)),
			CachedInputTokens: read, CacheWriteTokens: write, CacheReported: llm.ReportedZeroCache(u.CacheReadInputTokens != nil, read, write)}
	}
	return resp, nil
}

// inputJSON is a tool use's input as the call's arguments: compact JSON,
// or the text of a string input.
func inputJSON(d document.Interface) (string, error) {
	if d == nil {
		return "{}", nil
	}
	var v any
	if err := d.UnmarshalSmithyDocument(&v); err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// classify turns a failed call into an *llm.ProviderError: the context's
// failure first, then Bedrock's exception (its kind by its name and
// status), then transport failures.
func classify(ctx context.Context, err error) error {
	if pe := llm.ContextError(ctx, ProviderName, err); pe != nil {
		return pe
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		status := 0
		var re *smithyhttp.ResponseError
		if errors.As(err, &re) {
			status = re.HTTPStatusCode()
		}
		return &llm.ProviderError{Kind: wire.BedrockErrorKind(status, ae.ErrorCode(), ae.ErrorMessage()), Provider: ProviderName,
			StatusCode: status, Message: ae.ErrorMessage(), Err: err}
	}
	return httpwatch.TransportError(ProviderName, err)
}
