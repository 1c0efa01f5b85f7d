-- wrk script for bench/bench_side_by_side.py: one game per connection, each "cycle" a
-- GET of the seat's legal commands and a POST of one of them.
--
-- Run with as many threads as connections (-t C -c C), so each thread's Lua state drives
-- exactly one connection and one game at a time:
--   wrk -t16 -c16 -d10s -s bench/cycle.lua http://HOST:PORT -- GAMES_FILE
-- GAMES_FILE has one line per game: "<connection index> <game id> <token seat 0> <token seat 1> ...".
-- A connection plays its games in order. The seat to ask is the first the last move's answer
-- names in "to_move" (the project's answers do; an empty list: the game is over, the
-- connection moves on to its next game). Where an answer names none (the ceiling's), the
-- seat is a guess, the one after the last mover; a seat with nothing to do answers an empty
-- list and the next seat is asked, and a game whose every seat answers empty is over.
-- POST latency is measured here (wrk's own histogram mixes GETs and POSTs).

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk, bench_timespec *tp);
]]
local ts = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local threads = {}
local counter = 0

function setup(thread)
  thread:set("idx", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local games, g, seat, empties, mode, pending, sent

function init(args)
  games = {}
  for line in io.lines(args[1]) do
    local f = {}
    for w in line:gmatch("%S+") do f[#f + 1] = w end
    if tonumber(f[1]) == idx then
      local tokens = {}
      for i = 3, #f do tokens[#tokens + 1] = f[i] end
      games[#games + 1] = { id = f[2], tokens = tokens }
    end
  end
  g, seat, empties, mode = 1, 1, 0, "get"
  post_lat = {}
  posts, gets, empty_gets, errors, exhausted, finished = 0, 0, 0, 0, 0, 0
  statuses = {}
  math.randomseed(idx * 7919 + 1)
end

local function split_commands(body)
  local s, e = body:find('"commands"%s*:%s*%[')
  if not s then return {} end
  local out, depth, start, instr, esc = {}, 0, nil, false, false
  for j = e + 1, #body do
    local c = body:byte(j)
    if instr then
      if esc then esc = false elseif c == 92 then esc = true elseif c == 34 then instr = false end
    elseif c == 34 then
      instr = true
    elseif c == 123 or c == 91 then
      if depth == 0 then start = j end
      depth = depth + 1
    elseif c == 125 or c == 93 then
      if depth == 0 then break end
      depth = depth - 1
      if depth == 0 then out[#out + 1] = body:sub(start, j) end
    end
  end
  return out
end

local function next_game()
  finished = finished + 1
  g = g + 1
  if g > #games then
    g = 1
    exhausted = exhausted + 1
  end
  seat, empties = 1, 0
end

function request()
  local game = games[g]
  local auth = "Bearer " .. game.tokens[seat]
  sent = now()
  if mode == "get" then
    return wrk.format("GET", "/games/" .. game.id .. "/legal-commands", { Authorization = auth })
  end
  return wrk.format("POST", "/games/" .. game.id .. "/commands",
    { Authorization = auth, ["Content-Type"] = "application/json" }, pending)
end

function response(status, headers, body)
  local took = now() - sent
  local n = #games[g].tokens
  statuses[status] = (statuses[status] or 0) + 1
  if mode == "get" then
    gets = gets + 1
    local commands = {}
    if status == 200 then
      commands = split_commands(body)
    else
      errors = errors + 1
    end
    if #commands == 0 then
      empty_gets = empty_gets + 1
      empties = empties + 1
      seat = seat % n + 1
      if empties >= n then next_game() end
    else
      empties = 0
      pending = commands[math.random(#commands)]
      mode = "post"
    end
  else
    mode = "get"
    seat = seat % n + 1
    if status == 201 then
      posts = posts + 1
      post_lat[#post_lat + 1] = took
      local named = body:match('"to_move"%s*:%s*%[([^%]]*)%]')
      if named then
        local first = named:match("%d+")
        if first then seat = tonumber(first) + 1 else next_game() end
      end
    else
      errors = errors + 1
    end
  end
end

function done(summary, latency, requests)
  local out = io.open(os.getenv("CYCLE_RESULT") or "/dev/stdout", "w")
  for _, thread in ipairs(threads) do
    local lat = thread:get("post_lat")
    out:write(string.format("thread %d posts %d gets %d empty %d errors %d finished %d exhausted %d\n",
      thread:get("idx"), thread:get("posts"), thread:get("gets"), thread:get("empty_gets"),
      thread:get("errors"), thread:get("finished"), thread:get("exhausted")))
    for status, count in pairs(thread:get("statuses")) do
      out:write(string.format("status %d %d\n", status, count))
    end
    local parts = {}
    for i, v in ipairs(lat) do parts[i] = string.format("%.6f", v) end
    out:write("lat " .. table.concat(parts, " ") .. "\n")
  end
  out:close()
end
