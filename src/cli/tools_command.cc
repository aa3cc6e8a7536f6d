// `medreact tools list [--pack NAME]`: the tool specs a model would be shown,
// as a JSON array on stdout — the machine-readable catalogue for front ends
// and for checking a pack's descriptions and schemas. The imaging pack is not
// a row of the pack table (only the chest X-ray app offers it, over its
// images, endpoints and vision model); it is listed last, each tool with
// "offered": false and "why": what it needs (ImagingToolsStatus of an
// unconfigured pack, with the CLI's flag names).
//
// With --mcp 'CMD ARGS' / --mcp-url URL (mcp_client_flags.h) it prints the
// tools those MCP servers attach instead, each with its pack
// ("mcp:<server>"), the name the model sees (prefixed <server>__<tool> when
// it clashes with any medreact tool) and "mcp_name", the server's own name;
// refused tools and renames are said on stderr.
#include <iostream>

#include "cli/commands.h"
#include "cli/mcp_client_flags.h"
#include "cli/setting_flags.h"
#include "core/printable.h"
#include "mcp/mcp_attach.h"
#include "medreact/tool_registry.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/imaging/imaging_pack.h"
#include "tools/packs.h"
#include "tools/rag/rag_pack.h"

namespace medreact::cli {
namespace {

struct ToolsFlags {
  std::string pack;
  McpClientFlags mcp;
};

Json EmptyBundle() {
  return Json{{"resourceType", "Bundle"}, {"type", "collection"},
              {"entry", Json::array({Json{{"resource", {{"resourceType", "Patient"}, {"id", "example"}}}}})}};
}

constexpr char kImagingPack[] = "imaging";

// The imaging pack's seven tools, none offered without configuration, and why.
void AppendImagingPack(Json& out) {
  const std::vector<ToolSpec> specs = imaging::ImagingPackSpecs();
  const std::vector<imaging::ImagingToolStatus> status = imaging::ImagingToolsStatus({});
  for (size_t i = 0; i < specs.size() && i < status.size(); ++i) {
    out.push_back(Json{{"pack", kImagingPack},
                       {"name", specs[i].name},
                       {"description", specs[i].description},
                       {"parameters", specs[i].parameters},
                       {"offered", status[i].offered},
                       {"why", WithFlagNames(status[i].reason)}});
  }
}

// The MCP servers' tools, named as they are attached next to `medreact_tools`.
int ListMcpTools(const ToolsFlags& flags, const Json& medreact_tools) {
  Result<std::vector<std::shared_ptr<mcp::McpClient>>> clients = ConnectMcpFlags(flags.mcp, nullptr);
  if (!clients.ok()) {
    std::cerr << "medreact tools: " << PrintableLine(WithFlagNames(clients.status().message())) << "\n";
    return kExitBadInput;
  }
  ToolRegistry registry;  // medreact's own names first: a clash with any of them is prefixed
  for (const Json& row : medreact_tools) {
    ToolSpec spec{.name = row["name"].get<std::string>(), .description = "", .parameters = row["parameters"]};
    if (registry.Find(spec.name)) continue;
    (void)registry.Register(MakeFunctionTool(spec, [](const Json&, const ToolContext&) { return ToolResult::Ok(""); }));
  }
  const std::vector<std::string> before = registry.Names();
  std::map<std::string, std::string> packs;
  auto warn = [](const std::string& w) { std::cerr << "medreact tools: " << PrintableLine(w) << "\n"; };
  std::map<std::string, std::string> mcp_names;
  for (const auto& client : *clients) {
    if (Status s = mcp::AttachMcpTools(registry, client, warn, &packs, &mcp_names); !s.ok()) {
      std::cerr << "medreact tools: " << PrintableLine(WithFlagNames(s.message())) << "\n";
      return kExitBadInput;
    }
  }
  Json out = Json::array();
  for (const ToolSpec& spec : registry.Specs()) {
    if (std::find(before.begin(), before.end(), spec.name) != before.end()) continue;
    out.push_back(Json{{"pack", packs[spec.name]},
                       {"name", spec.name},
                       {"mcp_name", mcp_names[spec.name]},
                       {"description", spec.description},
                       {"parameters", spec.parameters}});
  }
  for (auto& client : *clients) client->Close();
  std::cout << Printable(DumpJson(out, 2)) << "\n";  // the servers' specs are outside text
  return kExitOk;
}

int RunToolsList(const ToolsFlags& flags) {
  Json out = Json::array();
  for (const auto& pack : KnownPacks()) {
    if (!flags.pack.empty() && flags.pack != pack.name) continue;
    ToolRegistry registry;
    // Packs that read data are listed without it: the specs do not depend on
    // the data (fhir from an empty record, rag from its spec list).
    Status s;
    if (pack.name == "fhir") {
      s = RegisterFhirPack(registry, std::make_shared<const FhirStore>(FhirStore::FromJson(EmptyBundle()).value()));
    } else if (pack.name != "rag") {
      s = RegisterPacks(registry, {pack.name});
    }
    if (!s.ok()) {
      std::cerr << "medreact tools: " << s.ToString() << "\n";
      return kExitBadInput;
    }
    for (const auto& spec : pack.name == "rag" ? RagPackSpecs() : registry.Specs()) {
      out.push_back(Json{{"pack", pack.name},
                         {"name", spec.name},
                         {"description", spec.description},
                         {"parameters", spec.parameters}});
    }
  }
  if (flags.pack.empty() || flags.pack == kImagingPack) AppendImagingPack(out);
  if (flags.mcp.any()) return ListMcpTools(flags, out);
  if (!flags.pack.empty() && out.empty()) {
    std::string known;
    for (const auto& p : KnownPacks()) known += (known.empty() ? "" : ", ") + p.name;
    known += std::string(", ") + kImagingPack;
    std::cerr << "medreact tools: unknown pack '" << flags.pack << "' (known packs: " << known << ")\n";
    return kExitBadInput;
  }
  std::cout << Printable(DumpJson(out, 2)) << "\n";  // a plugin's specs are outside text
  return kExitOk;
}

}  // namespace

void AddToolsCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ToolsFlags>();
  CLI::App* tools = app.add_subcommand("tools", "inspect the tool packs");
  tools->require_subcommand(1);
  CLI::App* list = tools->add_subcommand("list", "print the tool specs of every pack (or one) as JSON");
  list->add_option("--pack", flags->pack, "only this pack");
  AddMcpClientFlags(list, &flags->mcp);
  list->callback([flags, exit_code] { *exit_code = RunToolsList(*flags); });
}

}  // namespace medreact::cli
