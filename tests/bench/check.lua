-- wrk script for the django_mcp benchmark: POST one JSON-RPC request again
-- and again (a fresh id each time) and check every reply.
--
-- The request comes from files in the folder named by BENCH_REQUEST_DIR,
-- written by _measure.py: body_prefix and body_suffix (the body around its
-- id), headers ("Name: value" lines), path, and patterns (one Lua pattern a
-- line that every reply body must match; a leading "!" means must not).
-- A reply counts as good only with status 200 and every pattern satisfied.
-- done() prints "BENCH key=value" lines for the harness.

local dir = os.getenv("BENCH_REQUEST_DIR")

local function read(name)
  local file = assert(io.open(dir .. "/" .. name, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

local prefix, suffix, path = read("body_prefix"), read("body_suffix"), read("path")
local headers = {}
for line in read("headers"):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  headers[name] = value
end
local must, must_not = {}, {}
for line in read("patterns"):gmatch("[^\n]+") do
  if line:sub(1, 1) == "!" then
    table.insert(must_not, line:sub(2))
  else
    table.insert(must, line)
  end
end

-- Per-thread counters, read by done() through thread:get().
good, bad, next_id, first_bad = 0, 0, 0, ""

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function request()
  next_id = next_id + 1
  return wrk.format("POST", path, headers, prefix .. next_id .. suffix)
end

function response(status, reply_headers, body)
  local ok = status == 200
  if ok then
    for _, pattern in ipairs(must) do
      if not body:find(pattern) then
        ok = false
        break
      end
    end
  end
  if ok then
    for _, pattern in ipairs(must_not) do
      if body:find(pattern) then
        ok = false
        break
      end
    end
  end
  if ok then
    good = good + 1
  else
    bad = bad + 1
    if first_bad == "" then
      first_bad = status .. " " .. (body:sub(1, 300):gsub("[\r\n]", " "))
    end
  end
end

function done(summary, latency, requests)
  local total_good, total_bad, first = 0, 0, ""
  for _, thread in ipairs(threads) do
    total_good = total_good + thread:get("good")
    total_bad = total_bad + thread:get("bad")
    if first == "" then
      first = thread:get("first_bad")
    end
  end
  io.write(string.format("BENCH good=%d\n", total_good))
  io.write(string.format("BENCH bad=%d\n", total_bad))
  io.write(string.format("BENCH p50_us=%d\n", latency:percentile(50)))
  io.write(string.format("BENCH p99_us=%d\n", latency:percentile(99)))
  if first ~= "" then
    io.write("BENCH first_bad=" .. first .. "\n")
  end
end
