// The server layer (src/server/): `medreact serve`, over the run service
// (src/service/), beside the CLI. See server.h.
namespace medreact::server {}
