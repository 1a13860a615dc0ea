local bt = require("bt")
local function order(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  return table.concat(out, ",")
end
-- Keys come, go and come back; new ones keep coming as time goes on. After
-- the signal Other the draws shift: other keys, at other times.
local function churn(t, other, n)
  for _ = 1, 3 do
    if other then bt.random() end
    local u = bt.random()
    local k = "k" .. bt.random(1, n)
    if u < 0.4 then t[k] = nil
    elseif u < 0.8 then t[k] = (t[k] or 0) + 1
    elseif u < 0.9 then t[bt.random(1, 6)] = (u < 0.85) and true or nil
    else t[u < 0.95] = {k} end
  end
end
bt.action("churn", function(ctx)
  local other, n = ctx:var("Other"), math.floor(ctx.time * 4) + 2
  churn(ctx.memory, other, n)
  churn(ctx.agent, other, n)
  ctx:log("memory " .. order(ctx.memory) .. " agent " .. order(ctx.agent))
  -- The trace shows the order too: a variable that depends on it.
  local sum, i = 0, 0
  for k in pairs(ctx.memory) do
    i = i + 1
    sum = sum + i * #tostring(k)
  end
  ctx:setVar("Early", sum % 2 == 0)
  return bt.RUNNING
end)
