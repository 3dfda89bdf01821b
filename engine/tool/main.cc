// parlor-engine: the rules engine on the command line, for rule designers and for operators
// settling disputes. Usage: parlor-engine help.

#include <iostream>
#include <string>
#include <vector>

#include "engine/games/all_games.h"
#include "engine/tool/tool.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return parlor::engine_tool::RunTool(parlor::engine::AllGames(), args, std::cin, std::cout,
                                      std::cerr);
}
