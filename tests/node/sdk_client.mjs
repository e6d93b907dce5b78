#!/usr/bin/env node
/**
 * sdk_client.mjs - drive an MCP server with the official MCP TypeScript SDK.
 *
 * The Python test suite runs this as a subprocess to check that django_mcp
 * interoperates with a real, independent MCP client (the TypeScript SDK's
 * `Client` over the Streamable HTTP transport).
 *
 * Usage (from tests/node, after `npm ci`; `npx` puts the pinned Node 22 first
 * on PATH):
 *
 *   npx node sdk_client.mjs <url> [options]
 *
 * (tests/live/test_typescript_sdk_client.py runs node_modules/.bin/node
 * directly, with node_modules/.bin first on PATH: the same thing.)
 *
 * Options (all optional; every JSON value must be a JSON object):
 *   --tool NAME                  tool for the "call" step            (default: echo)
 *   --args JSON                  its arguments                       (default: {"text":"hi"})
 *   --read URI                   resources/read this URI; repeatable -> "read"
 *   --read-error URI             resources/read a URI that must fail -> "readError"
 *   --prompt NAME                prompts/get this prompt             -> "prompt"
 *   --prompt-args JSON           its arguments                       (default: {})
 *   --complete-prompt NAME       completion/complete against ref/prompt NAME
 *   --complete-arg NAME          ...for this argument name           (required with --complete-prompt)
 *   --complete-value V           ...with this partial value          (default: "")
 *                                                                    -> "complete"
 *   --progress-tool NAME         call NAME with a progress callback  -> "progress", "progressCall"
 *   --progress-args JSON         its arguments                       (default: {})
 *   --elicit-tool NAME           call NAME, answering elicitation    -> "elicitation", "elicitationRequests"
 *   --elicit-args JSON           its arguments                       (default: {})
 *   --elicit-content JSON        content of the "accept" answer      (default: {})
 *   --timeout MS                 per-request timeout                 (default: 30000)
 *   --no-terminate               do not send DELETE for the session at the end
 *
 * Output: exactly ONE compact JSON object on stdout, written at the very end
 * (all diagnostics go to stderr). Keys:
 *   serverInfo           client.getServerVersion() (the server's `serverInfo`)
 *   protocolVersion      protocol version negotiated by initialize
 *   capabilities         the server's declared capabilities
 *   instructions         the server's instructions (or null)
 *   sessionId            the Mcp-Session-Id the server assigned (or null)
 *   tools                names from tools/list (all pages)
 *   call                 full CallToolResult of --tool/--args
 *   resources            URIs from resources/list (all pages)
 *   templates            uriTemplates from resources/templates/list (all pages)
 *   prompts              names from prompts/list (all pages)
 *   read                 full ReadResourceResult of every --read, in
 *                        command-line order (an array)     (only with --read)
 *   readError            {code, message, data} of the JSON-RPC error the
 *                        --read-error read failed with, or null if it
 *                        unexpectedly succeeded            (only with --read-error)
 *   prompt               full GetPromptResult               (only with --prompt)
 *   complete             full CompleteResult                (only with --complete-prompt)
 *   progress             params of every notifications/progress received
 *                        for the --progress-tool call      (only with --progress-tool)
 *   progressCall         that call's CallToolResult         (only with --progress-tool)
 *   elicitation          CallToolResult of --elicit-tool    (only with --elicit-tool)
 *   elicitationRequests  params of every elicitation/create received
 *                                                           (only with --elicit-tool)
 * "resources"/"templates" and "prompts" are null when the server does not
 * declare the `resources` / `prompts` capability (the lists are not requested).
 *
 * Exit status: 0 on success; 1 on any failure (connection, protocol error,
 * JSON-RPC error response, ...), with a one-line reason on stderr; 2 on bad
 * command-line usage. A tool result with `isError: true` is NOT a failure: it
 * is a normal result and is reported as such.
 */

import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

// stdout carries only the final JSON document. Route any stray console
// output (from this script or a library) to stderr so it cannot corrupt it.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

/** Print a diagnostic line on stderr. */
function log(...parts) {
    console.error('[sdk_client]', ...parts);
}

/** Error for bad command-line usage (exit status 2). */
class UsageError extends Error {}

const USAGE =
    'usage: npx node sdk_client.mjs <url> [--tool NAME] [--args JSON] [--read URI]... [--read-error URI]\n' +
    '       [--prompt NAME] [--prompt-args JSON]\n' +
    '       [--complete-prompt NAME --complete-arg NAME [--complete-value V]]\n' +
    '       [--progress-tool NAME [--progress-args JSON]]\n' +
    '       [--elicit-tool NAME [--elicit-args JSON] [--elicit-content JSON]]\n' +
    '       [--timeout MS] [--no-terminate]';

/** Parse a command-line option that must hold a JSON object. */
function jsonObjectOption(name, text) {
    let value;
    try {
        value = JSON.parse(text);
    } catch (err) {
        throw new UsageError(`--${name}: invalid JSON (${err.message})`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new UsageError(`--${name}: expected a JSON object, got ${text}`);
    }
    return value;
}

/** Parse and validate argv into a plain options object. */
function parseCommandLine(argv) {
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            allowPositionals: true,
            strict: true,
            options: {
                tool: { type: 'string', default: 'echo' },
                args: { type: 'string', default: '{"text":"hi"}' },
                read: { type: 'string', multiple: true, default: [] },
                'read-error': { type: 'string' },
                prompt: { type: 'string' },
                'prompt-args': { type: 'string', default: '{}' },
                'complete-prompt': { type: 'string' },
                'complete-arg': { type: 'string' },
                'complete-value': { type: 'string', default: '' },
                'progress-tool': { type: 'string' },
                'progress-args': { type: 'string', default: '{}' },
                'elicit-tool': { type: 'string' },
                'elicit-args': { type: 'string', default: '{}' },
                'elicit-content': { type: 'string', default: '{}' },
                timeout: { type: 'string', default: '30000' },
                'no-terminate': { type: 'boolean', default: false },
                help: { type: 'boolean', short: 'h', default: false },
            },
        });
    } catch (err) {
        throw new UsageError(err.message);
    }
    const { values, positionals } = parsed;
    if (values.help) {
        process.stderr.write(USAGE + '\n');
        process.exit(0);
    }
    if (positionals.length !== 1) {
        throw new UsageError('expected exactly one positional argument: the server URL');
    }
    let url;
    try {
        url = new URL(positionals[0]);
    } catch {
        throw new UsageError(`not a valid URL: ${positionals[0]}`);
    }
    if (values['complete-prompt'] !== undefined && values['complete-arg'] === undefined) {
        throw new UsageError('--complete-prompt requires --complete-arg');
    }
    const timeout = Number(values.timeout);
    if (!Number.isInteger(timeout) || timeout <= 0) {
        throw new UsageError(`--timeout: expected a positive integer (ms), got ${values.timeout}`);
    }
    return {
        url,
        tool: values.tool,
        toolArgs: jsonObjectOption('args', values.args),
        read: values.read,
        readError: values['read-error'],
        prompt: values.prompt,
        promptArgs: jsonObjectOption('prompt-args', values['prompt-args']),
        completePrompt: values['complete-prompt'],
        completeArg: values['complete-arg'],
        completeValue: values['complete-value'],
        progressTool: values['progress-tool'],
        progressArgs: jsonObjectOption('progress-args', values['progress-args']),
        elicitTool: values['elicit-tool'],
        elicitArgs: jsonObjectOption('elicit-args', values['elicit-args']),
        elicitContent: jsonObjectOption('elicit-content', values['elicit-content']),
        timeout,
        terminate: !values['no-terminate'],
    };
}

/**
 * Collect every item of a paginated list method, following `nextCursor`.
 * `fetchPage(params)` is e.g. `(p) => client.listTools(p)`; `key` names the
 * array in each page ("tools", "resources", ...).
 */
async function listAll(fetchPage, key, requestOptions) {
    const items = [];
    const seenCursors = new Set();
    let cursor;
    for (;;) {
        const page = await fetchPage(cursor === undefined ? {} : { cursor }, requestOptions);
        items.push(...page[key]);
        cursor = page.nextCursor;
        if (cursor === undefined || cursor === null) return items;
        if (seenCursors.has(cursor)) throw new Error(`${key}: server repeated cursor ${JSON.stringify(cursor)}`);
        seenCursors.add(cursor);
    }
}

/** Run every requested step against the server; return the output object. */
async function run(opts) {
    const requestOptions = { timeout: opts.timeout };
    const out = {};

    // Declaring `elicitation` makes the server allowed to send
    // elicitation/create; only do so when an elicitation step is requested.
    const capabilities = opts.elicitTool !== undefined ? { elicitation: {} } : {};
    const client = new Client({ name: 'django-mcp-tests-sdk-client', version: '0.0.0' }, { capabilities });
    // Transport-level errors are logged; the failing request itself rejects
    // and is reported by main(). Aborts caused by our own close() are noise.
    let closing = false;
    client.onerror = (err) => {
        if (!closing) log('client error:', err?.message ?? err);
    };

    // Elicitation: answer every elicitation/create with "accept" + the given
    // content, and remember what the server asked.
    const elicitationRequests = [];
    if (opts.elicitTool !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
            log('elicitation/create received:', JSON.stringify(request.params));
            elicitationRequests.push(request.params);
            return { action: 'accept', content: opts.elicitContent };
        });
    }

    const transport = new StreamableHTTPClientTransport(opts.url);
    log(`connecting to ${opts.url.href}`);
    await client.connect(transport, requestOptions); // sends initialize + notifications/initialized

    try {
        const serverCapabilities = client.getServerCapabilities() ?? {};
        out.serverInfo = client.getServerVersion() ?? null;
        // The transport records the version the client sends in the
        // MCP-Protocol-Version header, i.e. the one initialize negotiated.
        out.protocolVersion = transport.protocolVersion ?? null;
        out.capabilities = serverCapabilities;
        out.instructions = client.getInstructions() ?? null;
        out.sessionId = transport.sessionId ?? null;
        log(`connected: protocol ${out.protocolVersion}, session ${out.sessionId}`);

        // Tools: list (this also primes the SDK's output-schema validators
        // used by callTool), then call the requested tool.
        const tools = await listAll((p, o) => client.listTools(p, o), 'tools', requestOptions);
        out.tools = tools.map((t) => t.name);
        log(`tools/call ${opts.tool} ${JSON.stringify(opts.toolArgs)}`);
        out.call = await client.callTool({ name: opts.tool, arguments: opts.toolArgs }, undefined, requestOptions);

        // Resources and templates (only if the server offers resources).
        if (serverCapabilities.resources) {
            const resources = await listAll((p, o) => client.listResources(p, o), 'resources', requestOptions);
            out.resources = resources.map((r) => r.uri);
            const templates = await listAll(
                (p, o) => client.listResourceTemplates(p, o),
                'resourceTemplates',
                requestOptions,
            );
            out.templates = templates.map((t) => t.uriTemplate);
        } else {
            out.resources = null;
            out.templates = null;
        }

        // Prompts (only if the server offers prompts).
        if (serverCapabilities.prompts) {
            const prompts = await listAll((p, o) => client.listPrompts(p, o), 'prompts', requestOptions);
            out.prompts = prompts.map((p) => p.name);
        } else {
            out.prompts = null;
        }

        if (opts.read.length > 0) {
            out.read = [];
            for (const uri of opts.read) {
                log(`resources/read ${uri}`);
                out.read.push(await client.readResource({ uri }, requestOptions));
            }
        }

        // A read that must fail: record the JSON-RPC error instead of failing
        // the whole run. Anything that is not an McpError (transport failure,
        // timeout) still propagates.
        if (opts.readError !== undefined) {
            log(`resources/read ${opts.readError} (expecting an error)`);
            try {
                await client.readResource({ uri: opts.readError }, requestOptions);
                out.readError = null;
            } catch (err) {
                if (!(err instanceof McpError)) throw err;
                // McpError prefixes its message with "MCP error <code>: ".
                const message = err.message.replace(/^MCP error -?\d+: /, '');
                out.readError = { code: err.code, message, data: err.data ?? null };
            }
        }

        if (opts.prompt !== undefined) {
            log(`prompts/get ${opts.prompt} ${JSON.stringify(opts.promptArgs)}`);
            out.prompt = await client.getPrompt({ name: opts.prompt, arguments: opts.promptArgs }, requestOptions);
        }

        if (opts.completePrompt !== undefined) {
            log(`completion/complete ${opts.completePrompt}.${opts.completeArg}=${JSON.stringify(opts.completeValue)}`);
            out.complete = await client.complete(
                {
                    ref: { type: 'ref/prompt', name: opts.completePrompt },
                    argument: { name: opts.completeArg, value: opts.completeValue },
                },
                requestOptions,
            );
        }

        // Progress: passing `onprogress` makes the SDK add a progressToken to
        // the request's _meta and route matching notifications/progress here.
        if (opts.progressTool !== undefined) {
            const progress = [];
            log(`tools/call ${opts.progressTool} (with progress) ${JSON.stringify(opts.progressArgs)}`);
            out.progressCall = await client.callTool(
                { name: opts.progressTool, arguments: opts.progressArgs },
                undefined,
                {
                    ...requestOptions,
                    onprogress: (p) => {
                        log('progress:', JSON.stringify(p));
                        progress.push(p);
                    },
                },
            );
            out.progress = progress;
        }

        if (opts.elicitTool !== undefined) {
            log(`tools/call ${opts.elicitTool} (answering elicitation) ${JSON.stringify(opts.elicitArgs)}`);
            out.elicitation = await client.callTool(
                { name: opts.elicitTool, arguments: opts.elicitArgs },
                undefined,
                requestOptions,
            );
            out.elicitationRequests = elicitationRequests;
        }

        // End the session explicitly (HTTP DELETE with Mcp-Session-Id). The
        // SDK treats 405 (server does not allow client termination) as fine.
        if (opts.terminate && transport.sessionId !== undefined) {
            log(`terminating session ${transport.sessionId}`);
            await transport.terminateSession();
        }
    } finally {
        closing = true;
        await client.close().catch((err) => log('close failed:', err?.message ?? err));
    }
    return out;
}

/** Write `text` to stdout and exit once it is flushed. */
function writeAndExit(text, code) {
    process.stdout.write(text, () => process.exit(code));
}

async function main() {
    let opts;
    try {
        opts = parseCommandLine(process.argv.slice(2));
    } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        process.stderr.write(`sdk_client: ${err.message}\n${USAGE}\n`);
        process.exit(2);
    }
    try {
        const out = await run(opts);
        writeAndExit(JSON.stringify(out) + '\n', 0);
    } catch (err) {
        // McpError messages already read "MCP error <code>: <message>";
        // network errors ("fetch failed") carry the real reason in `cause`.
        const cause = err?.cause ? ` (${[err.cause.code, err.cause.message ?? err.cause].filter(Boolean).join(': ')})` : '';
        process.stderr.write(`sdk_client: FAILED: ${err?.message ?? err}${cause}\n`);
        if (err?.stack) log(err.stack);
        process.exit(1);
    }
}

await main();
