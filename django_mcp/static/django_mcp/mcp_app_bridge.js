/*
 * The App (View) side of MCP Apps, inlined into a page by {% mcp_app_bridge %}.
 *
 * MCP Apps (extension io.modelcontextprotocol/ui, specification 2026-01-26,
 * "Communication Protocol"): the page runs in a sandboxed iframe and talks
 * JSON-RPC 2.0 with its host over window.postMessage. This script is the
 * page's end of that conversation, with no dependencies:
 *
 * - the handshake: the `ui/initialize` request (protocolVersion, appInfo,
 *   appCapabilities), then the `ui/notifications/initialized` notification
 *   once the host answered (the host sends nothing before it);
 * - what the host sends: `ui/notifications/tool-input`, `-tool-input-partial`,
 *   `-tool-result`, `-tool-cancelled`, `-host-context-changed`, and the
 *   `ui/resource-teardown` and `ping` requests;
 * - what the page may ask: `tools/call` and `resources/read` (the host
 *   proxies them to the MCP server), `ui/message`, `ui/update-model-context`,
 *   `ui/open-link`, `ui/request-display-mode`, `notifications/message`;
 * - `ui/notifications/size-changed` whenever the document's size changes
 *   (ResizeObserver), unless the script tag says data-mcp-auto-resize="false".
 *
 * Page code uses window.mcpApp:
 *
 *   mcpApp.onToolResult((result) => render(result.structuredContent));
 *   const answer = await mcpApp.callTool("refresh", {page: 2});
 *   const read = await mcpApp.readResource("ui://shop/help");
 *   await mcpApp.sendMessage("Show me order 42");
 *
 * Each on...(fn) also runs fn at once with the last value received, so the
 * order of page code and host messages does not matter; the same values are
 * dispatched as DOM events on window ("mcp-app:tool-result", ...). A request
 * the host refuses rejects with an Error carrying the JSON-RPC `code` and
 * `data`. Only messages from window.parent are read.
 */
"use strict";
(() => {
  if (window.mcpApp) {
    return;
  }
  const PROTOCOL_VERSION = "2026-01-26";
  const script = document.currentScript;
  const option = (name, fallback) => (script && script.dataset[name]) || fallback;
  const host = window.parent;
  const pending = new Map();
  const listeners = {};
  const last = {};
  let nextId = 1;

  const post = (message) => host.postMessage({jsonrpc: "2.0", ...message}, "*");

  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, {resolve, reject});
    post({id, method, params: params || {}});
  });

  const notify = (method, params) => post({method, params: params || {}});

  const emit = (name, value) => {
    last[name] = value;
    (listeners[name] || []).slice().forEach((fn) => {
      try {
        fn(value);
      } catch (error) {
        console.error(error);
      }
    });
    window.dispatchEvent(new CustomEvent(`mcp-app:${name}`, {detail: value}));
  };

  const on = (name) => (fn) => {
    (listeners[name] = listeners[name] || []).push(fn);
    if (name in last) {
      fn(last[name]);
    }
    return () => {
      listeners[name] = (listeners[name] || []).filter((other) => other !== fn);
    };
  };

  // Host -> View notifications, by method.
  const NOTIFICATIONS = {
    "ui/notifications/tool-input": (params) => emit("tool-input", params.arguments || {}),
    "ui/notifications/tool-input-partial": (params) => emit("tool-input-partial", params.arguments || {}),
    "ui/notifications/tool-result": (params) => emit("tool-result", params),
    "ui/notifications/tool-cancelled": (params) => emit("tool-cancelled", params),
    "ui/notifications/host-context-changed": (params) => {
      api.hostContext = {...api.hostContext, ...params};
      emit("host-context", api.hostContext);
    },
  };

  // Host -> View requests, by method: each returns the result (or a promise).
  const REQUESTS = {
    "ping": () => ({}),
    "ui/resource-teardown": async (params) => {
      await Promise.all((listeners.teardown || []).map((fn) => fn(params)));
      return {};
    },
  };

  const answer = async (message) => {
    const handler = REQUESTS[message.method];
    if (!handler) {
      post({id: message.id, error: {code: -32601, message: "Method not found"}});
      return;
    }
    try {
      post({id: message.id, result: await handler(message.params || {})});
    } catch (error) {
      post({id: message.id, error: {code: -32603, message: String(error && error.message || error)}});
    }
  };

  window.addEventListener("message", (event) => {
    const message = event.data;
    if (event.source !== host || !message || message.jsonrpc !== "2.0") {
      return;
    }
    if (message.method === undefined) {
      const waiter = pending.get(message.id);
      if (!waiter) {
        return;
      }
      pending.delete(message.id);
      if (message.error) {
        const error = new Error(message.error.message || "JSON-RPC error");
        error.code = message.error.code;
        error.data = message.error.data;
        waiter.reject(error);
      } else {
        waiter.resolve(message.result);
      }
    } else if (message.id !== undefined) {
      answer(message);
    } else if (NOTIFICATIONS[message.method]) {
      NOTIFICATIONS[message.method](message.params || {});
    }
  });

  const watchSize = () => {
    let sent = "";
    let queued = false;
    const send = () => {
      queued = false;
      // The root element's box, not its scroll size: scrollHeight is never
      // below the frame's own height, so a page could never shrink it.
      const root = document.documentElement;
      const box = root.getBoundingClientRect();
      const size = {width: Math.ceil(Math.max(box.width, root.scrollWidth)), height: Math.ceil(box.height)};
      const key = `${size.width}x${size.height}`;
      if (key !== sent) {
        sent = key;
        notify("ui/notifications/size-changed", size);
      }
    };
    const later = () => {
      if (!queued) {
        queued = true;
        requestAnimationFrame(send);
      }
    };
    if (typeof ResizeObserver === "function") {
      const observer = new ResizeObserver(later);
      observer.observe(document.documentElement);
      if (document.body) {
        observer.observe(document.body);
      }
    }
    later();
  };

  const api = {
    /** The host's answer to ui/initialize: hostInfo, hostCapabilities, hostContext. */
    host: null,
    /** The host context, updated by host-context-changed notifications. */
    hostContext: {},
    request,
    notify,
    callTool: (name, args) => request("tools/call", {name, arguments: args || {}}),
    readResource: (uri) => request("resources/read", {uri}),
    sendMessage: (text) => request("ui/message", {role: "user", content: [{type: "text", text: String(text)}]}),
    updateModelContext: (params) => request("ui/update-model-context", params || {}),
    openLink: (url) => request("ui/open-link", {url: String(url)}),
    requestDisplayMode: (mode) => request("ui/request-display-mode", {mode}),
    log: (level, data) => notify("notifications/message", {level, data}),
    onToolInput: on("tool-input"),
    onToolInputPartial: on("tool-input-partial"),
    onToolResult: on("tool-result"),
    onToolCancelled: on("tool-cancelled"),
    onHostContextChanged: on("host-context"),
    onTeardown: on("teardown"),
  };
  api.ready = request("ui/initialize", {
    protocolVersion: PROTOCOL_VERSION,
    appInfo: {name: option("mcpAppName", document.title || "app"), version: option("mcpAppVersion", "1.0.0")},
    appCapabilities: {},
  }).then((result) => {
    api.host = result || {};
    api.hostContext = (result && result.hostContext) || {};
    notify("ui/notifications/initialized", {});
    if (option("mcpAutoResize", "true") !== "false") {
      watchSize();
    }
    emit("host-context", api.hostContext);
    return api.host;
  });
  window.mcpApp = api;
})();
