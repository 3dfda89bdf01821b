#ifndef PARLOR_ENGINE_TOOL_TOOL_H_
#define PARLOR_ENGINE_TOOL_TOOL_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "engine/core/registry.h"

namespace parlor::engine_tool {

// The `parlor-engine` command line (see engine/README.md): `args` excludes the program name.
// Reads the state from `--state FILE` or `in`, writes results to `--out FILE` or `out`. Every error
// is one line on `err` and exit code 2. Returns the exit code.
int RunTool(const engine::Registry& registry, const std::vector<std::string>& args,
            std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace parlor::engine_tool

#endif  // PARLOR_ENGINE_TOOL_TOOL_H_
