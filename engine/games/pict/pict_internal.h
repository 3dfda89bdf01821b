#ifndef PARLOR_ENGINE_GAMES_PICT_PICT_INTERNAL_H_
#define PARLOR_ENGINE_GAMES_PICT_PICT_INTERNAL_H_

// Helpers shared by Pict's own source files (rules, view, snapshot); not for use outside the
// folder.

#include <array>
#include <cstdint>
#include <string>

#include "engine/games/pict/pict.h"
#include "google/protobuf/repeated_field.h"
#include "parlor/games/v1/pict.pb.h"

namespace parlor::games::pict::internal {

// An action code taken apart (pict.cc).
struct Decoded {
  enum class Kind : uint8_t { kInvalid, kPaint, kBrush, kSkipBrush, kFill };
  Kind kind = Kind::kInvalid;
  // Paint.
  int count = 0;
  int squares[3] = {0, 0, 0};  // palette indices, ascending
  int shift_row = 0;
  int shift_col = 0;
  // Brush and Fill.
  int row = 0;
  int col = 0;
  Colour colour = kEmpty;
};

Decoded Decode(engine::Action code);

// Texts (pict.cc): "(1,2)", "red", "seat 1".
std::string SquareText(int row, int col);
const char* ColourName(Colour colour);
std::string SeatName(int seat);

// The squares that hold a colour, one bit each (pict.cc).
uint16_t FilledMask(const std::array<Colour, kCanvasSquares>& canvas);
uint16_t PaletteMask(const std::array<Colour, kPaletteSquares>& palette);

// Colours in the public proto (pict_view.cc).
::parlor::games::v1::PictColour ToProtoColour(Colour colour);
void CanvasToProto(const std::array<Colour, kCanvasSquares>& canvas,
                   google::protobuf::RepeatedField<int>* out);

}  // namespace parlor::games::pict::internal

#endif  // PARLOR_ENGINE_GAMES_PICT_PICT_INTERNAL_H_
