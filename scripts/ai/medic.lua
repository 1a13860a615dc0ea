-- Actions and hooks of the medic tree (medic.xml). Couriers call for help
-- (courier.lua's dodge sends OnHurt with {who, x, y} to two of the medics,
-- medic-1 to medic-N with N = bt.shared.medics); the medic holds the last call as a
-- stimulus (ctx:stimulus) until it expires or the patient is treated.
local bt = require("bt")
local steer = require("steer")

-- goToPatient: walk to where the last call for help came from.
bt.action("goToPatient", {
  start = function(ctx, params)
    local call = ctx:stimulus("OnHurt")
    steer.plan(ctx.state, ctx.agent, ctx.time, call.x, call.y, params:number("goToPatient.speed", 3))
  end,
  run = function(ctx, params)
    return steer.follow(ctx.state, ctx.agent, ctx.time, ctx.dt) and bt.SUCCESS or bt.RUNNING
  end,
})

-- medkit: the healing branch's enter and exit hook. Opened when the branch
-- starts; packed away whenever it is left (how says why); a patient
-- treated is forgotten, so the next call is a new one.
bt.hook("medkit", function(ctx, params, how)
  local m = ctx.memory
  if how == "enter" then
    m.patient = ctx:stimulus("OnHurt").who
    ctx:log("opens the medkit for " .. m.patient)
    return
  end
  ctx:log("packs the medkit away (" .. how .. ")")
  if how == "success" then
    m.treated = (m.treated or 0) + 1
    ctx:forget("OnHurt")
  end
  m.patient = nil
end)
