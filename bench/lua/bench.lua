-- wrk script shared by every measure of scripts/bench.
--
-- BENCH_REQUESTS  a file with one request per line: METHOD<TAB>PATH<TAB>BODY[<TAB>Header: value]...
--                 (no file: wrk's own GET of the URL's path). Requests are pre-formatted in init(),
--                 so request() is a table lookup and wrk spends as little CPU as possible.
-- BENCH_START     0-based line to start at (so consecutive runs use fresh tokens or interactions).
-- BENCH_ONCE      "1": stop when the file is used up instead of starting over (single-use requests).
-- BENCH_EXPECT_STATUS  a status every answer must have (e.g. 404): answers with another status are
--                 counted as "unexpected_status" (wrk still counts every status >= 400 in
--                 "status_errors"). Unset: no response() hook, so wrk does not parse the answers.
--
-- done() prints one line "BENCHJSON {...}" with the counts and latency percentiles (microseconds).
local requests = {}
local n = 0
local i = 0
local once = os.getenv("BENCH_ONCE") == "1"
local expect = tonumber(os.getenv("BENCH_EXPECT_STATUS") or "")
local threads = {}
unexpected = 0 -- per thread, read by done() through thread:get()

function setup(thread)
  table.insert(threads, thread)
end

if expect then
  function response(status, _, _)
    if status ~= expect then unexpected = unexpected + 1 end
  end
end

local function split(line, sep)
  local out = {}
  local from = 1
  while true do
    local s, e = string.find(line, sep, from, true)
    if not s then
      table.insert(out, string.sub(line, from))
      return out
    end
    table.insert(out, string.sub(line, from, s - 1))
    from = e + 1
  end
end

function init(args)
  local file = os.getenv("BENCH_REQUESTS")
  if file == nil or file == "" then
    requests[1] = wrk.format(nil, nil, nil, nil)
    n = 1
    return
  end
  for line in io.lines(file) do
    if line ~= "" then
      local f = split(line, "\t")
      local headers = {}
      for k = 4, #f do
        local c = string.find(f[k], ":", 1, true)
        headers[string.sub(f[k], 1, c - 1)] = string.gsub(string.sub(f[k], c + 1), "^%s+", "")
      end
      local body = f[3]
      if body == "" then body = nil end
      n = n + 1
      requests[n] = wrk.format(f[1], f[2], headers, body)
    end
  end
  i = tonumber(os.getenv("BENCH_START") or "0") % n
end

function request()
  i = i + 1
  if i > n then
    if once then wrk.thread:stop() end
    i = 1
  end
  return requests[i]
end

function done(summary, latency, _)
  local e = summary.errors
  local wrong = 0
  for _, thread in ipairs(threads) do wrong = wrong + (thread:get("unexpected") or 0) end
  io.write(string.format(
    'BENCHJSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' ..
    '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,' ..
    '"unexpected_status":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout, wrong))
end
