// Pict's view (Pict hides nothing: every viewer sees the whole table), action texts and the
// mapping between action codes and the public PictAction message.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/pict/pict.h"
#include "engine/games/pict/pict_internal.h"
#include "parlor/games/v1/pict.pb.h"

namespace parlor::games::pict {

namespace v1 = ::parlor::games::v1;
using engine::Action;
using internal::CanvasToProto;
using internal::ColourName;
using internal::Decode;
using internal::Decoded;
using internal::FilledMask;
using internal::SeatName;
using internal::SquareText;
using internal::ToProtoColour;

namespace internal {

::parlor::games::v1::PictColour ToProtoColour(Colour colour) {
  return static_cast<::parlor::games::v1::PictColour>(colour);
}

void CanvasToProto(const std::array<Colour, kCanvasSquares>& canvas,
                   google::protobuf::RepeatedField<int>* out) {
  for (Colour k : canvas) out->Add(ToProtoColour(k));
}

}  // namespace internal

namespace {

void SetSquare(int row, int col, v1::PictSquare* out) {
  out->set_row(row);
  out->set_col(col);
}

v1::PictAction ToProtoAction(Action code) {
  v1::PictAction out;
  const Decoded d = Decode(code);
  switch (d.kind) {
    case Decoded::Kind::kPaint: {
      v1::PictPaint* paint = out.mutable_paint();
      for (int i = 0; i < d.count; ++i) {
        v1::PictStroke* stroke = paint->add_strokes();
        const int r = d.squares[i] / 3, c = d.squares[i] % 3;
        SetSquare(r, c, stroke->mutable_palette());
        SetSquare(r + d.shift_row, c + d.shift_col, stroke->mutable_canvas());
      }
      break;
    }
    case Decoded::Kind::kBrush:
      SetSquare(d.row, d.col, out.mutable_brush()->mutable_target());
      out.mutable_brush()->set_colour(ToProtoColour(d.colour));
      break;
    case Decoded::Kind::kSkipBrush:
      out.mutable_skip_brush();
      break;
    case Decoded::Kind::kFill:
      SetSquare(d.row, d.col, out.mutable_fill()->mutable_at());
      out.mutable_fill()->set_colour(ToProtoColour(d.colour));
      break;
    case Decoded::Kind::kInvalid:
      break;
  }
  return out;
}

}  // namespace

const google::protobuf::Descriptor* PictGame::ActionDescriptor() const {
  return v1::PictAction::descriptor();
}

const google::protobuf::Descriptor* PictGame::ViewDescriptor() const {
  return v1::PictView::descriptor();
}

absl::StatusOr<Action> PictGame::ActionFromProto(const google::protobuf::Message& message) const {
  const v1::PictAction* action = dynamic_cast<const v1::PictAction*>(&message);
  v1::PictAction copy;
  if (action == nullptr) {
    if (message.GetDescriptor()->full_name() != v1::PictAction::descriptor()->full_name() ||
        !copy.ParseFromString(message.SerializeAsString())) {
      return absl::InvalidArgumentError(
          absl::StrCat("action: pict expects a parlor.games.v1.PictAction; got ",
                       message.GetDescriptor()->full_name()));
    }
    action = &copy;
  }
  switch (action->action_case()) {
    case v1::PictAction::kPaint: {
      std::vector<Stroke> strokes;
      strokes.reserve(action->paint().strokes_size());
      for (int i = 0; i < action->paint().strokes_size(); ++i) {
        const v1::PictStroke& s = action->paint().strokes(i);
        if (!s.has_palette() || !s.has_canvas()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "paint.strokes[", i, "].", s.has_palette() ? "canvas" : "palette", " is missing"));
        }
        strokes.push_back(
            {s.palette().row(), s.palette().col(), s.canvas().row(), s.canvas().col()});
      }
      return PaintCode(strokes);
    }
    case v1::PictAction::kBrush: {
      const v1::PictBrush& brush = action->brush();
      if (!brush.has_target()) return absl::InvalidArgumentError("brush.target is missing");
      const int row = brush.target().row(), col = brush.target().col();
      if (row < 0 || row >= kCanvasSize || col < 0 || col >= kCanvasSize) {
        return absl::InvalidArgumentError(
            absl::StrCat("canvas square ", SquareText(row, col), " is outside the 4×4 canvas"));
      }
      if (brush.colour() < v1::PICT_COLOUR_RED || brush.colour() > v1::PICT_COLOUR_BLUE) {
        return absl::InvalidArgumentError("the paintbrush needs a colour");
      }
      return BrushCode(row, col, static_cast<Colour>(brush.colour()));
    }
    case v1::PictAction::kSkipBrush:
      return kSkipBrush;
    case v1::PictAction::kFill: {
      const v1::PictFill& fill = action->fill();
      if (!fill.has_at()) return absl::InvalidArgumentError("fill.at is missing");
      const int row = fill.at().row(), col = fill.at().col();
      if (row < 0 || row >= kPaletteSize || col < 0 || col >= kPaletteSize) {
        return absl::InvalidArgumentError(
            absl::StrCat("palette square ", SquareText(row, col), " is outside the 3×3 palette"));
      }
      if (fill.colour() < v1::PICT_COLOUR_RED || fill.colour() > v1::PICT_COLOUR_BLUE) {
        return absl::InvalidArgumentError("a Fill needs a colour: red, yellow or blue");
      }
      return FillCode(row, col, static_cast<Colour>(fill.colour()));
    }
    case v1::PictAction::ACTION_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "a PictAction must hold one of paint, brush, skip_brush or fill");
}

std::unique_ptr<google::protobuf::Message> PictGame::ActionToProto(Action action) const {
  return std::make_unique<v1::PictAction>(ToProtoAction(action));
}

std::string PictState::ActionToStringImpl(int seat, Action action) const {
  const Decoded d = Decode(action);
  switch (d.kind) {
    case Decoded::Kind::kPaint: {
      std::vector<std::string> strokes;
      for (int i = 0; i < d.count; ++i) {
        const int r = d.squares[i] / 3, c = d.squares[i] % 3;
        strokes.push_back(
            absl::StrCat(SquareText(r, c), "→", SquareText(r + d.shift_row, c + d.shift_col)));
      }
      return absl::StrCat("paint ", absl::StrJoin(strokes, ", "));
    }
    case Decoded::Kind::kBrush:
      return absl::StrCat("brush ", SeatName(1 - std::clamp(seat, 0, 1)), "'s canvas square ",
                          SquareText(d.row, d.col), " ", ColourName(d.colour));
    case Decoded::Kind::kSkipBrush:
      return "skip the paintbrush";
    case Decoded::Kind::kFill:
      return absl::StrCat("fill ", SquareText(d.row, d.col), " ", ColourName(d.colour));
    case Decoded::Kind::kInvalid:
      break;
  }
  return absl::StrCat("not a Pict action (code ", action, ")");
}

std::unique_ptr<google::protobuf::Message> PictState::ViewImpl(const engine::Viewer&) const {
  // Pict hides nothing: every viewer gets the whole table.
  auto view = std::make_unique<v1::PictView>();
  view->set_empty_palette_start(empty_palette_start_);
  view->set_paintbrushes(paintbrushes_);
  view->set_first_player(board_.first_player);
  // Over by the rules or by a forfeit: every viewer sees the outcome's ranks and reason.
  const engine::State::Ending ending = GetEnding();
  switch (ending.over ? Phase::kOver : board_.phase) {
    case Phase::kPainting:
      view->set_phase(v1::PICT_PHASE_PAINTING);
      break;
    case Phase::kFilling:
      view->set_phase(v1::PICT_PHASE_FILLING);
      break;
    case Phase::kOver:
      view->set_phase(v1::PICT_PHASE_OVER);
      break;
  }
  view->set_opening_fill(board_.opening_fill);
  view->set_to_move(ending.over ? -1 : board_.to_move);
  view->set_brush_step(!ending.over && board_.brush_step);
  view->set_game_over(ending.over);
  for (int rank : ending.ranks) view->add_ranks(rank);
  view->set_end_reason(ending.reason);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  view->set_phase_starter(board_.phase_starter);
  view->set_previous_painting_starter(board_.previous_painting_starter);
  for (Colour k : board_.palette) view->add_palette(ToProtoColour(k));
  for (int seat = 0; seat < 2; ++seat) {
    v1::PictPlayer* player = view->add_players();
    player->set_seat(seat);
    player->set_score(board_.score[seat]);
    player->set_paintbrushes_left(board_.paintbrushes_left[seat]);
    CanvasToProto(board_.canvas[seat], player->mutable_canvas());
    player->set_filled_squares(std::popcount(FilledMask(board_.canvas[seat])));
  }
  for (const Move& move : history_) {
    v1::PictMove* out = view->add_history();
    out->set_seat(move.seat);
    *out->mutable_action() = ToProtoAction(move.action);
    for (uint8_t i = 0; i < move.num_chains; ++i) {
      const Chain& chain = move.chains[i];
      v1::PictChain* c = out->add_chains();
      switch (chain.shape) {
        case Chain::Shape::kHorizontal:
          c->set_shape(v1::PICT_CHAIN_SHAPE_HORIZONTAL);
          break;
        case Chain::Shape::kVertical:
          c->set_shape(v1::PICT_CHAIN_SHAPE_VERTICAL);
          break;
        case Chain::Shape::kLone:
          c->set_shape(v1::PICT_CHAIN_SHAPE_LONE);
          break;
      }
      c->set_colour(ToProtoColour(chain.colour));
      SetSquare(chain.first / 4, chain.first % 4, c->mutable_first());
      SetSquare(chain.last / 4, chain.last % 4, c->mutable_last());
      c->set_length(chain.length);
    }
    out->set_turn_score(move.turn_score);
    out->set_bonus(move.bonus);
  }
  view->set_finisher(board_.finisher);
  return view;
}

}  // namespace parlor::games::pict
