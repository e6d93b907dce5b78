// The playground as an MCP Apps host (extension io.modelcontextprotocol/ui,
// specification 2026-01-26, "Communication Protocol" and "Lifecycle").
//
// The App runs in #mcp-app-frame, sandboxed with allow-scripts only, and
// speaks JSON-RPC 2.0 over postMessage. Only messages whose source is that
// frame are read. This script:
// - answers ui/initialize with the host's capabilities and context (the
//   tool's definition as toolInfo), then, once the App sends
//   ui/notifications/initialized (the host sends nothing before),
//   ui/notifications/tool-input and ui/notifications/tool-result;
// - posts the App's tools/call and resources/read to the admin's relay
//   (CSRF-protected; run as the signed-in user, same checks as the
//   playground) and passes the answer back;
// - answers ui/message, ui/update-model-context, ui/open-link,
//   ui/request-display-mode and ping, listing what was asked under the frame;
// - sizes the frame from ui/notifications/size-changed.
"use strict";
{
  const MAX_HEIGHT = 800;
  const frame = document.getElementById("mcp-app-frame");
  const data = frame && JSON.parse(document.getElementById(frame.dataset.bridge).textContent);
  const log = document.getElementById("mcp-app-log");
  const token = document.querySelector(".mcp-app-csrf input[name=csrfmiddlewaretoken]");

  const note = (kind, text) => {
    const item = document.createElement("li");
    item.className = `mcp-app-event mcp-app-${kind}`;
    item.textContent = text;
    log.append(item);
  };

  class RpcError extends Error {
    constructor(error) {
      super(error.message);
      this.rpc = error;
    }
  }

  const send = (message) => frame.contentWindow.postMessage({jsonrpc: "2.0", ...message}, "*");

  const relay = async (method, params) => {
    const response = await fetch(frame.dataset.relayUrl, {
      method: "POST",
      body: JSON.stringify({method, params}),
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": token ? token.value : ""},
    });
    const reply = response.ok
      ? await response.json()
      : {error: {code: -32603, message: `The admin answered HTTP ${response.status}.`}};
    if (reply.error) {
      throw new RpcError(reply.error);
    }
    return reply.result;
  };

  const hostContext = () => ({
    toolInfo: {tool: data.tool},
    theme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: {width: frame.clientWidth, maxHeight: MAX_HEIGHT},
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    userAgent: "django-mcp admin playground",
    platform: "web",
  });

  // Requests from the App, by method: each returns the result, or throws
  // an RpcError carrying the JSON-RPC error to answer with.
  const REQUESTS = {
    "ui/initialize": () => ({
      // The revision the admin names (app_host.APP_PROTOCOL_VERSION).
      protocolVersion: data.protocolVersion,
      hostInfo: {name: "django-mcp-admin", version: "1.0.0"},
      hostCapabilities: {openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: {text: {}}},
      hostContext: hostContext(),
    }),
    "tools/call": async (params) => {
      note("call", `tools/call ${params.name}`);
      return relay("tools/call", params);
    },
    "resources/read": async (params) => {
      note("read", `resources/read ${params.uri}`);
      return relay("resources/read", params);
    },
    "ui/message": (params) => {
      const blocks = Array.isArray(params.content) ? params.content : [params.content || {}];
      note("message", `Message: ${blocks.map((b) => b.text || `[${b.type}]`).join(" ")}`);
      return {};
    },
    "ui/update-model-context": () => {
      note("context", "The App updated the model context.");
      return {};
    },
    "ui/open-link": (params) => {
      note("link", `Open link: ${params.url}`);
      const url = new URL(String(params.url), window.location.href);
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        throw new RpcError({code: -32602, message: "Only http and https links open."});
      }
      window.open(url.href, "_blank", "noopener,noreferrer");
      return {};
    },
    "ui/request-display-mode": () => ({mode: "inline"}),
    "ping": () => ({}),
  };

  const NOTIFICATIONS = {
    "ui/notifications/initialized": () => {
      frame.dataset.initialized = "true";
      send({method: "ui/notifications/tool-input", params: {arguments: data.arguments}});
      send({method: "ui/notifications/tool-result", params: data.result});
    },
    "ui/notifications/size-changed": (params) => {
      if (typeof params.height === "number" && params.height > 0) {
        frame.style.height = `${Math.min(Math.ceil(params.height), MAX_HEIGHT)}px`;
      }
    },
    "notifications/message": (params) => note("log", `Log ${params.level}: ${JSON.stringify(params.data)}`),
  };

  const answer = async (message) => {
    const handler = REQUESTS[message.method];
    if (!handler) {
      send({id: message.id, error: {code: -32601, message: "Method not found"}});
      return;
    }
    try {
      send({id: message.id, result: await handler(message.params || {})});
    } catch (error) {
      send({id: message.id, error: error.rpc || {code: -32603, message: "The host could not answer."}});
    }
  };

  if (frame) {
    window.addEventListener("message", (event) => {
      const message = event.data;
      if (event.source !== frame.contentWindow || !message || message.jsonrpc !== "2.0" || !message.method) {
        return;
      }
      if (message.id !== undefined) {
        answer(message);
      } else if (NOTIFICATIONS[message.method]) {
        NOTIFICATIONS[message.method](message.params || {});
      }
    });
  }
}
