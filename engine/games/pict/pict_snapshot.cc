// Pict's snapshot: the private PictState message (pict_state.proto) written by SaveImpl. LoadImpl
// replays the stored moves with the rules, refusing any the rules refuse, then requires every
// stored field to be exactly what the moves produce; its refusals use the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/snapshot_check.h"
#include "engine/games/pict/pict.h"
#include "engine/games/pict/pict_internal.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "parlor/games/v1/pict.pb.h"
#include "pict/pict_state.pb.h"

namespace parlor::games::pict {
namespace {

namespace check = engine::snapshot;
namespace v1 = ::parlor::games::v1;
using check::Field;
using internal::CanvasToProto;
using internal::ToProtoColour;

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

engine::pict::PictState SnapshotOf(const Board& board, const std::vector<Move>& history) {
  engine::pict::PictState out;
  out.set_first_player(board.first_player);
  for (const Move& move : history) {
    engine::pict::PictStateMove* m = out.add_moves();
    m->set_seat(move.seat);
    m->set_action(move.action);
  }
  for (Colour k : board.palette) out.add_palette(ToProtoColour(k));
  CanvasToProto(board.canvas[0], out.mutable_canvas_seat0());
  CanvasToProto(board.canvas[1], out.mutable_canvas_seat1());
  for (int seat = 0; seat < 2; ++seat) {
    out.add_scores(board.score[seat]);
    out.add_paintbrushes_left(board.paintbrushes_left[seat]);
  }
  out.set_phase(board.phase == Phase::kPainting  ? v1::PICT_PHASE_PAINTING
                : board.phase == Phase::kFilling ? v1::PICT_PHASE_FILLING
                                                 : v1::PICT_PHASE_OVER);
  out.set_opening_fill(board.opening_fill);
  out.set_to_move(board.to_move);
  out.set_brush_step(board.brush_step);
  out.set_phase_starter(board.phase_starter);
  out.set_previous_painting_starter(board.previous_painting_starter);
  out.set_finisher(board.finisher);
  return out;
}

}  // namespace

void PictState::SaveImpl(google::protobuf::Any* out) const {
  out->PackFrom(SnapshotOf(board_, history_));
}

absl::Status PictState::LoadImpl(const google::protobuf::Any& in) {
  engine::pict::PictState snapshot;
  PARLOR_RETURN_IF_ERROR(check::Unpack(in, &snapshot));
  PARLOR_RETURN_IF_ERROR(check::CheckSeat(Field("first_player"), snapshot.first_player(), 2));
  PARLOR_RETURN_IF_ERROR(
      check::CheckMaxSize(Field("moves"), snapshot.moves_size(), game().MaxMoves(2, options())));
  // Rebuild the position from the moves, refusing any move the rules refuse, then require every
  // stored field to be exactly what the moves produce.
  PictState rebuilt(*this);
  rebuilt.StartBoard(snapshot.first_player());
  for (int i = 0; i < snapshot.moves_size(); ++i) {
    const engine::pict::PictStateMove& m = snapshot.moves(i);
    const Field move = Field("moves")[i];
    PARLOR_RETURN_IF_ERROR(check::CheckSeat(move("seat"), m.seat(), 2));
    if (absl::Status s = rebuilt.Check(m.seat(), m.action()); !s.ok()) {
      return check::Invalid(move,
                            absl::StrCat("code ", m.action(), " is not legal: ", s.message()));
    }
    rebuilt.Play(m.seat(), m.action());
  }
  PARLOR_RETURN_IF_ERROR(
      check::Require(DeterministicBytes(SnapshotOf(rebuilt.board_, rebuilt.history_)) ==
                         DeterministicBytes(snapshot),
                     Field(), "the stored position does not match the one its moves produce"));
  board_ = rebuilt.board_;
  history_ = std::move(rebuilt.history_);
  return absl::OkStatus();
}

}  // namespace parlor::games::pict
