// Tokens and host transfers: shape rules, printing and parsing of
// !stablehlo.token, the host queues, and both backends running
// infeed/outfeed/send/recv through them.
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/host_transfers.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Shape> Infer(Opcode op, std::vector<Shape> operands, const Shape* declared = nullptr) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : operands) ptrs.push_back(&s);
  return InferShape(op, ptrs, Attributes::Default(OpcodeAttrsKind(op)), {}, declared);
}

const Shape kTok = Shape::Token();
const Shape kF32x3(DType::kF32, {3});

TEST(HostIo, TokenType) {
  EXPECT_EQ(kTok.ToString(), "!stablehlo.token");
  EXPECT_NE(kTok, Shape(DType::kPred, {}));
  EXPECT_FALSE(kTok.is_array());
  EXPECT_EQ(kTok.byte_size(), 1);  // the placeholder byte
}

TEST(HostIo, ShapeRules) {
  absl::StatusOr<Shape> s = Infer(Opcode::kAfterAll, {kTok, kTok});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, kTok);
  EXPECT_TRUE(Infer(Opcode::kAfterAll, {}).ok());
  EXPECT_THAT(Infer(Opcode::kAfterAll, {kF32x3}).status().message(),
              HasSubstr("operand 0 must be a !stablehlo.token"));
  s = Infer(Opcode::kOutfeed, {kF32x3, kF32x3, kTok});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, kTok);
  EXPECT_THAT(Infer(Opcode::kOutfeed, {kTok, kF32x3}).status().message(),
              HasSubstr("last operand must be a !stablehlo.token"));
  Shape declared = Shape::Tuple({kF32x3, kTok});
  s = Infer(Opcode::kInfeed, {kTok}, &declared);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, declared);
  s = Infer(Opcode::kInfeed, {kTok}, &kF32x3);  // one array stands for (array, token)
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, declared);
  Shape no_token = Shape::Tuple({kF32x3});
  EXPECT_THAT(Infer(Opcode::kInfeed, {kTok}, &no_token).status().message(),
              HasSubstr("results must be (tensors..., !stablehlo.token)"));
  EXPECT_THAT(Infer(Opcode::kInfeed, {kF32x3}, &declared).status().message(),
              HasSubstr("operand must be a !stablehlo.token"));
  // Ops that compute on data refuse tokens.
  EXPECT_THAT(Infer(Opcode::kNegate, {kTok}).status().message(),
              HasSubstr("carries no data"));
}

TEST(HostIo, QueueWaitsAndTimesOut) {
  HostTransferQueue q("test queue");
  absl::StatusOr<Literal> none = q.Pop(kF32x3, absl::Milliseconds(10));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(none.status().message(), HasSubstr("no value arrived in the test queue"));
  std::thread feeder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    q.Push(Literal(kF32x3));
  });
  absl::StatusOr<Literal> got = q.Pop(kF32x3, absl::Seconds(10));
  feeder.join();
  ASSERT_TRUE(got.ok()) << got.status();
  q.Push(Literal(kF32x3));
  EXPECT_EQ(q.Pop(Shape(DType::kS32, {3}), absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(q.size(), 1u);  // a mismatched value stays queued
}

constexpr char kProgram[] = R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %t = stablehlo.create_token : !stablehlo.token
  %v:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
  %s = stablehlo.add %x, %v#0 : tensor<3xf32>
  %u = "stablehlo.outfeed"(%s, %v#1) {outfeed_config = ""} : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
  %w = "stablehlo.send"(%s, %u) {channel_handle = #stablehlo.channel_handle<handle = 42, type = 1>} : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
  %r:2 = "stablehlo.recv"(%w) {channel_handle = #stablehlo.channel_handle<handle = 42, type = 1>} : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
  %d = stablehlo.multiply %r#0, %x : tensor<3xf32>
  func.return %d : tensor<3xf32>
}
)";

TEST(HostIo, BackendsRunTheOpsThroughTheQueues) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kProgram);
  ASSERT_TRUE(module.ok()) << module.status();
  // Printing and parsing back keeps the module.
  std::string text = PrintModule(**module);
  EXPECT_THAT(text, HasSubstr("!stablehlo.token"));
  EXPECT_THAT(text, HasSubstr("#stablehlo.channel_handle<handle = 42, type = 1>"));
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(text);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  EXPECT_EQ(PrintModule(**again), text);

  for (const char* platform : {"reference", "cpu"}) {
    absl::StatusOr<Compiler*> compiler = GetCompiler(platform);
    ASSERT_TRUE(compiler.ok());
    absl::StatusOr<std::unique_ptr<CompiledProgram>> program = (*compiler)->Compile(**module);
    ASSERT_TRUE(program.ok()) << platform << ": " << program.status();
    Literal x(kF32x3), fed(kF32x3), out(kF32x3);
    for (int i = 0; i < 3; ++i) {
      x.mutable_data_as<float>()[i] = 1.0f + i;
      fed.mutable_data_as<float>()[i] = 10.0f;
    }
    InfeedQueue("", 0).Push(fed);
    const void* args[] = {x.data()};
    void* results[] = {out.mutable_data()};
    ASSERT_TRUE((*program)->Run(args, results).ok()) << platform;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(out.data_as<float>()[i], (11.0f + i) * (1.0f + i)) << platform;
    }
    absl::StatusOr<Literal> outfed = OutfeedQueue("", 0).Pop(kF32x3, absl::Seconds(1));
    ASSERT_TRUE(outfed.ok()) << platform;
    EXPECT_EQ(outfed->data_as<float>()[2], 13.0f) << platform;
    EXPECT_EQ(InfeedQueue("", 0).size(), 0u);
  }
}

}  // namespace
}  // namespace xjit
