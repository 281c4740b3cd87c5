-- A monitor's requests without a monitor's own work: every full entry
-- bundle of the log in order, each followed by its level-0 hash tile, as
-- `fairdeal monitor` reads them (it also reads a level-1 tile every 256
-- bundles); from the start again at the end. `entries` (the log's size) and `pause` (ms
-- between a connection's requests) are set by benches/monitor/run.sh.
entries = tonumber(os.getenv("LOG_ENTRIES") or "0")
pause = tonumber(os.getenv("PAUSE_MS") or "0")
bundles = math.max(1, math.floor(entries / 256))
counter = 0

-- C2SP tile index: groups of three digits, all but the last prefixed x.
local function index(n)
  local parts = {}
  repeat
    table.insert(parts, 1, string.format("%03d", n % 1000))
    n = math.floor(n / 1000)
  until n == 0
  for i = 1, #parts - 1 do parts[i] = "x" .. parts[i] end
  return table.concat(parts, "/")
end

request = function()
  local step = counter % (2 * bundles)
  counter = counter + 1
  local n = math.floor(step / 2)
  local path
  if step % 2 == 0 then
    path = "/log/tile/entries/" .. index(n)
  else
    path = "/log/tile/0/" .. index(n)
  end
  return wrk.format("GET", path)
end

delay = function()
  return pause
end
