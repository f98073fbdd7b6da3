-- mixed.lua: wrk request mix for scripts/soak/run.sh; cycles through the
-- routes a real client mix would hit on the demo pack.
local paths = {
  "/healthz",
  "/v1/datasets",
  "/v1/buildings?bbox=8.6700,50.1040,8.6840,50.1130&limit=100",
  "/v1/terrain/elevation?lat=50.1109&lon=8.6821",
  "/v1/terrain/profile?coords=8.675,50.1109%3B8.69,50.1109&samples=200",
  "/v1/vegetation/canopy?lat=50.115330&lon=8.672776",
  "/v1/attribution",
  "/v1/tilesets?bbox=8.67,50.10,8.69,50.12",
  "/v1/buildings/DOES-NOT-EXIST",
  "/v1/terrain/elevation?lat=91&lon=8",
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
