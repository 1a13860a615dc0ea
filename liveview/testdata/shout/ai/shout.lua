-- shout logs a different line of a megabyte every step; fail fails with an
-- error as long.
local bt = require("bt")

local function line(ctx, what)
  return what .. " " .. ctx.id .. " at " .. ctx.time .. ": " .. string.rep("é", 524288)
end

bt.action("shout", function(ctx)
  ctx:log(line(ctx, "shout"))
  return bt.SUCCESS
end)

bt.action("fail", function(ctx)
  error(line(ctx, "fail"))
end)
