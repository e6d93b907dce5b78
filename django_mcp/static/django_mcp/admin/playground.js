// The MCP playground (django_mcp.admin): argument completion, task polling.
//
// A task panel with data-poll-url (a task still working) is fetched again
// every data-poll-ms milliseconds (the task's pollIntervalMs) and replaced
// by what comes back, until the task ends or needs input.
//
// A form with data-complete-url asks the server for suggestions
// (completion/complete, through the admin's complete/ view) as an input
// marked data-complete-argument is focused or typed in, and lists them in
// the input's <datalist>. The values of the other arguments are sent as
// context. Suggestions are optional: any failure leaves the list as it was.
"use strict";
{
  const DELAY_MS = 150;

  const setUp = (form) => {
    const inputs = Array.from(form.querySelectorAll("[data-complete-argument]"));
    const token = form.querySelector("input[name=csrfmiddlewaretoken]");
    inputs.forEach((input) => {
      const list = document.getElementById(input.getAttribute("list"));
      let timer = null;
      let asked = 0;
      const ask = async () => {
        const context = {};
        inputs.forEach((other) => {
          if (other !== input && other.value) {
            context[other.dataset.completeArgument] = other.value;
          }
        });
        const body = new URLSearchParams({
          component: form.dataset.component,
          argument: input.dataset.completeArgument,
          value: input.value,
          context: JSON.stringify(context),
        });
        const mine = ++asked;
        try {
          const response = await fetch(form.dataset.completeUrl, {
            method: "POST",
            body,
            credentials: "same-origin",
            headers: {"X-CSRFToken": token ? token.value : ""},
          });
          if (!response.ok || mine !== asked) {
            return;
          }
          const answer = await response.json();
          const values = Array.isArray(answer.values) ? answer.values : [];
          list.replaceChildren(...values.map((value) => {
            const option = document.createElement("option");
            option.value = value;
            return option;
          }));
          input.dataset.suggestions = String(values.length);
        } catch (error) {
          // Leave the suggestions as they were.
        }
      };
      const later = () => {
        clearTimeout(timer);
        timer = setTimeout(ask, DELAY_MS);
      };
      input.addEventListener("input", later);
      input.addEventListener("focus", later);
    });
  };

  document.querySelectorAll("form[data-complete-url]").forEach(setUp);

  const poll = (panel) => {
    const url = panel.dataset.pollUrl;
    const delay = Math.max(100, Number(panel.dataset.pollMs) || 1000);
    setTimeout(async () => {
      try {
        const response = await fetch(url, {credentials: "same-origin"});
        if (!response.ok) {
          return;
        }
        const holder = document.createElement("div");
        holder.innerHTML = await response.text();
        const fresh = holder.querySelector("#mcp-task");
        if (fresh) {
          panel.replaceWith(fresh);
          if (fresh.dataset.pollUrl) {
            poll(fresh);
          }
        }
      } catch (error) {
        poll(panel);  // try again later
      }
    }, delay);
  };

  document.querySelectorAll("#mcp-task[data-poll-url]").forEach(poll);
}
