"""Every op xjit has, written in the pretty form JAX and StableHLO's printer
use: it parses, prints, and print -> parse -> print is a fixed point; the
printed module computes what the pretty one does. Malformed pretty forms fail
with the line, the column and what was expected."""
import re

import ml_dtypes
import numpy as np
import pytest

from xjit import _xjit, stablehlo

F = "tensor<2x3xf32>"
I = "tensor<2x3xi32>"
U = "tensor<2x3xui32>"
B = "tensor<2x3xi1>"
C = "tensor<2x3xcomplex<f32>>"
Q = "tensor<2x3x!quant.uniform<i8:f32:1, {0.5:-3,0.25,2.0:7}>>"
UNARY_F = ["abs", "cbrt", "ceil", "cosine", "erf", "exponential", "exponential_minus_one",
           "floor", "log", "log_plus_one", "logistic", "negate", "round_nearest_afz",
           "round_nearest_even", "rsqrt", "sign", "sine", "sqrt", "tan", "tanh"]
BINARY_F = ["add", "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum",
            "atan2"]
BINARY_I = ["and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical"]

# op -> (argument types, body lines using %a, %b, %c and defining %r, result types)
CASES = {
    "constant": ([], ["%r = stablehlo.constant dense<[[1.5, -2.0, 0x7FC00000], [0.0, 1.0, "
                      "2.0]]> : " + F], [F]),
    "iota": ([], ["%r = stablehlo.iota dim = 1 : " + I], [I]),
    "count_leading_zeros": ([I], ["%r = stablehlo.count_leading_zeros %a : " + I], [I]),
    "popcnt": ([I], ["%r = stablehlo.popcnt %a : " + I], [I]),
    "not": ([I], ["%r = stablehlo.not %a : " + I], [I]),
    "imag": ([C], [f"%r = stablehlo.imag %a : ({C}) -> {F}"], [F]),
    "real": ([C], [f"%r = stablehlo.real %a : ({C}) -> {F}"], [F]),
    "is_finite": ([F], [f"%r = stablehlo.is_finite %a : ({F}) -> {B}"], [B]),
    "convert": ([F], [f"%r = stablehlo.convert %a : ({F}) -> {I}"], [I]),
    "reduce_precision": ([F], [f"%r = stablehlo.reduce_precision %a, format = e5m10 : {F}"],
                         [F]),
    "complex": ([F, F], [f"%r = stablehlo.complex %a, %b : {C}"], [C]),
    "compare": ([F, F], [f"%r = stablehlo.compare  LT, %a, %b,  FLOAT : ({F}, {F}) -> {B}"],
                [B]),
    "select": ([B, F, F], [f"%r = stablehlo.select %a, %b, %c : {B}, {F}"], [F]),
    "clamp": (["tensor<f32>", F, "tensor<f32>"],
              [f"%r = stablehlo.clamp %a, %b, %c : (tensor<f32>, {F}, tensor<f32>) -> {F}"],
              [F]),
    "broadcast_in_dim": (["tensor<3xf32>"], [
        f"%r = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> {F}"], [F]),
    "reshape": ([F], ["%r = stablehlo.reshape %a : (" + F + ") -> tensor<3x2xf32>"],
                ["tensor<3x2xf32>"]),
    "transpose": ([F], [f"%r = stablehlo.transpose %a, dims = [1, 0] : ({F}) -> "
                        "tensor<3x2xf32>"], ["tensor<3x2xf32>"]),
    "slice": ([F], [f"%r = stablehlo.slice %a [0:2, 0:3:2] : ({F}) -> tensor<2x2xf32>"],
              ["tensor<2x2xf32>"]),
    "concatenate": ([F, F], [f"%r = stablehlo.concatenate %a, %b, dim = 0 : ({F}, {F}) -> "
                             "tensor<4x3xf32>"], ["tensor<4x3xf32>"]),
    "pad": ([F, "tensor<f32>"], [f"%r = stablehlo.pad %a, %b, low = [0, 1], high = [1, 0], "
                                 f"interior = [1, 0] : ({F}, tensor<f32>) -> tensor<4x4xf32>"],
            ["tensor<4x4xf32>"]),
    "reverse": ([F], [f"%r = stablehlo.reverse %a, dims = [0, 1] : {F}"], [F]),
    "bitcast_convert": ([F], [f"%r = stablehlo.bitcast_convert %a : ({F}) -> {U}"], [U]),
    "dot_general": (["tensor<2x2x3xf32>", "tensor<2x3x4xf32>"], [
        "%r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = "
        "[2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x2x3xf32>, tensor<2x3x4xf32>) "
        "-> tensor<2x2x4xf32>"], ["tensor<2x2x4xf32>"]),
    "reduce": ([F, I], [
        "%z = stablehlo.constant dense<0.0> : tensor<f32>",
        "%k = stablehlo.constant dense<0> : tensor<i32>",
        "%s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : "
        f"({F}, tensor<f32>) -> tensor<2xf32>",
        f"%r:2 = stablehlo.reduce(%a init: %z), (%b init: %k) across dimensions = [0] : "
        f"({F}, {I}, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)",
        "  reducer(%x: tensor<f32>, %y: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {",
        "    %m = stablehlo.maximum %x, %y : tensor<f32>",
        "    %n = stablehlo.add %i, %j : tensor<i32>",
        "    stablehlo.return %m, %n : tensor<f32>, tensor<i32>",
        "  }"], ["tensor<3xf32>", "tensor<3xi32>", "tensor<2xf32>"]),
    "tuple": ([F, I], [f"%t = stablehlo.tuple %a, %b : tuple<{F}, {I}>",
                       f"%r = stablehlo.get_tuple_element %t[1] : (tuple<{F}, {I}>) -> {I}"],
              [I]),
    "call": ([F], [f"%r = call @helper(%a) : ({F}) -> {F}"], [F]),
    "rng_bit_generator": (["tensor<2xui64>"], [
        "%s, %r = stablehlo.rng_bit_generator %a, algorithm = DEFAULT : (tensor<2xui64>) -> "
        f"(tensor<2xui64>, {U})"], ["tensor<2xui64>", U]),
    "sort": ([F, I], [
        '%r:2 = "stablehlo.sort"(%a, %b) <{dimension = 1 : i64, is_stable = true}> ({',
        "^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):",
        "  %lt = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<f32>, tensor<f32>) -> "
        "tensor<i1>",
        "  stablehlo.return %lt : tensor<i1>",
        f"}}) : ({F}, {I}) -> ({F}, {I})"], [F, I]),
    "dynamic_slice": ([F, "tensor<i32>"], [
        "%r = stablehlo.dynamic_slice %a, %b, %b, sizes = [1, 2] : (" + F
        + ", tensor<i32>, tensor<i32>) -> tensor<1x2xf32>"], ["tensor<1x2xf32>"]),
    "dynamic_update_slice": ([F, "tensor<1x2xf32>", "tensor<i32>"], [
        f"%r = stablehlo.dynamic_update_slice %a, %b, %c, %c : ({F}, tensor<1x2xf32>, "
        f"tensor<i32>, tensor<i32>) -> {F}"], [F]),
    "gather": ([F, "tensor<2x1xi32>"], [
        '%r = "stablehlo.gather"(%a, %b) <{dimension_numbers = #stablehlo.gather<offset_dims = '
        "[1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
        "indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : "
        f"({F}, tensor<2x1xi32>) -> {F}"], [F]),
    "scatter": ([F, "tensor<1x1xi32>", "tensor<1x3xf32>"], [
        '%r = "stablehlo.scatter"(%a, %b, %c) <{indices_are_sorted = false, '
        "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
        "unique_indices = false}> ({",
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
        "  %s = stablehlo.add %x, %y : tensor<f32>",
        "  stablehlo.return %s : tensor<f32>",
        f"}}) : ({F}, tensor<1x1xi32>, tensor<1x3xf32>) -> {F}"], [F]),
    "map": ([F, F], [
        '%r = "stablehlo.map"(%a, %b) <{dimensions = array<i64: 0, 1>}> ({',
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
        "  %m = stablehlo.multiply %x, %y : tensor<f32>",
        "  stablehlo.return %m : tensor<f32>",
        f"}}) : ({F}, {F}) -> {F}"], [F]),
}
# Ops added after the pretty-form table: generic forms (the printer falls back to them).
X4 = "tensor<1x4x4x1xf32>"
K4 = "tensor<2x2x1x1xf32>"
O4 = "tensor<1x3x3x1xf32>"
CASES.update({
    "while": ([F], [
        "%z = stablehlo.constant dense<0> : tensor<i32>",
        '%r:2 = "stablehlo.while"(%z, %a) ({',
        f"^bb0(%i: tensor<i32>, %x: {F}):",
        "  %k = stablehlo.constant dense<3> : tensor<i32>",
        "  %lt = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
        "  stablehlo.return %lt : tensor<i1>",
        "}, {",
        f"^bb0(%i: tensor<i32>, %x: {F}):",
        "  %one = stablehlo.constant dense<1> : tensor<i32>",
        "  %j = stablehlo.add %i, %one : tensor<i32>",
        f"  %y = stablehlo.add %x, %x : {F}",
        f"  stablehlo.return %j, %y : tensor<i32>, {F}",
        f"}}) : (tensor<i32>, {F}) -> (tensor<i32>, {F})"], [F]),
    "if": (["tensor<i1>", F], [
        '%r = "stablehlo.if"(%a) ({',
        f"  %n = stablehlo.negate %b : {F}",
        f"  stablehlo.return %n : {F}",
        "}, {",
        f"  stablehlo.return %b : {F}",
        f"}}) : (tensor<i1>) -> {F}"], [F]),
    "case": (["tensor<i32>", F], [
        '%r = "stablehlo.case"(%a) ({',
        f"  %n = stablehlo.negate %b : {F}",
        f"  stablehlo.return %n : {F}",
        "}, {",
        f"  %e = stablehlo.exponential %b : {F}",
        f"  stablehlo.return %e : {F}",
        "}, {",
        f"  stablehlo.return %b : {F}",
        f"}}) : (tensor<i32>) -> {F}"], [F]),
    "convolution": ([X4, K4], [
        '%r = "stablehlo.convolution"(%a, %b) {window_strides = array<i64: 1, 1>, padding = '
        "dense<0> : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = "
        "array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = "
        "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : "
        f"i64, batch_group_count = 1 : i64}} : ({X4}, {K4}) -> {O4}"], [O4]),
    "reduce_window": ([X4], [
        "%m = stablehlo.constant dense<0xFF800000> : tensor<f32>",
        '%r = "stablehlo.reduce_window"(%a, %m) ({',
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
        "  %s = stablehlo.maximum %x, %y : tensor<f32>",
        "  stablehlo.return %s : tensor<f32>",
        "}) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, "
        "1>, base_dilations = array<i64: 1, 1, 1, 1>, window_dilations = array<i64: 1, 1, 1, "
        f"1>, padding = dense<0> : tensor<4x2xi64>}} : ({X4}, tensor<f32>) -> {O4}"], [O4]),
    "select_and_scatter": ([X4, O4], [
        "%z = stablehlo.constant dense<0.0> : tensor<f32>",
        '%r = "stablehlo.select_and_scatter"(%a, %b, %z) ({',
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
        "  %ge = stablehlo.compare GE, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        "  stablehlo.return %ge : tensor<i1>",
        "}, {",
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):",
        "  %s = stablehlo.add %x, %y : tensor<f32>",
        "  stablehlo.return %s : tensor<f32>",
        "}) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, "
        f"1>, padding = dense<0> : tensor<4x2xi64>}} : ({X4}, {O4}, tensor<f32>) -> {X4}"], [X4]),
})
# No pretty form in StableHLO: printed generic, as MLIR does.
V3 = "tensor<3xf32>"
X3 = "tensor<2x3x2xf32>"
CASES.update({
    "batch_norm_inference": ([X3, V3, V3, V3, V3], [
        '%r = "stablehlo.batch_norm_inference"(%a, %b, %c, %d, %e) {epsilon = 1.000000e-03 : '
        f"f32, feature_index = 1 : i64}} : ({X3}, {V3}, {V3}, {V3}, {V3}) -> {X3}"], [X3]),
    "batch_norm_training": ([X3, V3, V3], [
        '%r:3 = "stablehlo.batch_norm_training"(%a, %b, %c) {epsilon = 9.99999974E-6 : f32, '
        f"feature_index = 1 : i64}} : ({X3}, {V3}, {V3}) -> ({X3}, {V3}, {V3})"],
        [X3, V3, V3]),
    "batch_norm_grad": ([X3, V3, V3, V3, X3], [
        '%r:3 = "stablehlo.batch_norm_grad"(%a, %b, %c, %d, %e) {epsilon = 0.0 : f32, '
        f"feature_index = 1 : i64}} : ({X3}, {V3}, {V3}, {V3}, {X3}) -> ({X3}, {V3}, {V3})"],
        [X3, V3, V3]),
})
# Tokens and host transfers (h-host). Module results are data: a token
# result has no numpy value to compare. infeed reads what _feed_host_queues
# put there; outfeed leaves what _drain_host_queues takes.
TOK = "!stablehlo.token"
CASES.update({
    "after_all": ([F], [
        f"%t = stablehlo.create_token : {TOK}",
        f"%u = stablehlo.after_all %t, %t : {TOK}",
        f'%o = "stablehlo.outfeed"(%a, %u) {{outfeed_config = ""}} : ({F}, {TOK}) -> {TOK}',
        f"%r = stablehlo.negate %a : {F}"], [F]),
    "outfeed": ([F], [
        f'%t = "stablehlo.after_all"() : () -> {TOK}',
        f'%o = "stablehlo.outfeed"(%a, %t) {{outfeed_config = ""}} : ({F}, {TOK}) -> {TOK}',
        f"%r = stablehlo.abs %a : {F}"], [F]),
    "infeed": ([], [
        f"%t = stablehlo.create_token : {TOK}",
        f'%r, %u = "stablehlo.infeed"(%t) {{infeed_config = ""}} : ({TOK}) -> ({F}, {TOK})'],
        [F]),
    "send": ([F], [
        f"%t = stablehlo.create_token : {TOK}",
        f'%u = "stablehlo.send"(%a, %t) {{channel_handle = #stablehlo.channel_handle<handle = '
        f'3, type = 1>, is_host_transfer = false}} : ({F}, {TOK}) -> {TOK}',
        f'%r, %v = "stablehlo.recv"(%u) {{channel_handle = #stablehlo.channel_handle<handle = '
        f'3, type = 1>, is_host_transfer = false}} : ({TOK}) -> ({F}, {TOK})'], [F]),
})
CASES["recv"] = CASES["send"]


def _feed_host_queues(op, runs):
    if op == "infeed":
        import xjit
        for platform in ("cpu", "reference"):
            for _ in range(runs):
                xjit.devices(platform)[0].transfer_to_infeed(np.ones((2, 3), np.float32))


def _drain_host_queues(op, runs):
    if op in ("outfeed", "after_all"):
        import xjit
        for platform in ("cpu", "reference"):
            for _ in range(runs):
                xjit.devices(platform)[0].transfer_from_outfeed(
                    xjit.ShapeDtypeStruct((2, 3), np.float32))


# h-linalg: cholesky has a pretty form; triangular_solve is printed generic.
M3 = "tensor<3x3xf32>"
CASES.update({
    "cholesky": ([M3], [f"%r = stablehlo.cholesky %a, lower = true : {M3}"], [M3]),
    "triangular_solve": ([M3, "tensor<3x2xf32>"], [
        '%r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, '
        "transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false} : "
        f"({M3}, tensor<3x2xf32>) -> tensor<3x2xf32>"], ["tensor<3x2xf32>"]),
})
# JAX's form of a call of a registered host function (the LAPACK Cholesky
# that JAX's CPU lowering emits), run on both backends like every case.
CASES["custom_call"] = (["tensor<3x3xf32>"], [
    '%r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {backend_config = "", '
    "mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : "
    "tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : "
    "tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)"],
    ["tensor<3x3xf32>", "tensor<i32>"])
for _op in UNARY_F:
    CASES[_op] = ([F], [f"%r = stablehlo.{_op} %a : {F}"], [F])
for _op in BINARY_F:
    CASES[_op] = ([F, F], [f"%r = stablehlo.{_op} %a, %b : {F}"], [F])
for _op in BINARY_I:
    CASES[_op] = ([I, I], [f"%r = stablehlo.{_op} %a, %b : {I}"], [I])
# ---- issue 11 (h-fft): generic forms (no pretty form in StableHLO's printer)
_S23 = "%s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>"
CASES.update({
    "fft": ([C], [f"%r = stablehlo.fft %a, type = FFT, length = [3] : ({C}) -> {C}"], [C]),
    "optimization_barrier": ([F, F], [f'%r:2 = "stablehlo.optimization_barrier"(%a, %b) : '
                                      f'({F}, {F}) -> ({F}, {F})'], [F, F]),
    "composite": ([F], [f'%r = "stablehlo.composite"(%a) {{name = "xjit.my_sine", '
                        'composite_attributes = {n = 1 : i64}, decomposition = @helper, '
                        f'version = 2 : i32}} : ({F}) -> {F}'], [F]),
    "uniform_quantize": ([F], [f"%r = stablehlo.uniform_quantize %a : ({F}) -> {Q}"], [Q]),
    "uniform_dequantize": ([Q], [f"%r = stablehlo.uniform_dequantize %a : ({Q}) -> {F}"], [F]),
    "replica_id": ([], ['%r = "stablehlo.replica_id"() : () -> tensor<ui32>'], ["tensor<ui32>"]),
    "partition_id": ([], ['%r = "stablehlo.partition_id"() : () -> tensor<ui32>'],
                     ["tensor<ui32>"]),
    "rng": (["tensor<f32>", "tensor<f32>"], [
        _S23, '%r = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution '
        f'NORMAL>}} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> {F}'], [F]),
    "dynamic_broadcast_in_dim": (["tensor<3xf32>"], [
        _S23, '%r = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = '
        f'array<i64: 1>}} : (tensor<3xf32>, tensor<2xi64>) -> {F}'], [F]),
    "dynamic_conv": (["tensor<1x4x4x1xf32>", "tensor<3x3x1x1xf32>"], [
        "%s = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>",
        '%r = "stablehlo.dynamic_conv"(%a, %b, %s) {dimension_numbers = '
        "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, "
        "batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, "
        "tensor<2x2xi64>) -> tensor<1x4x4x1xf32>"], ["tensor<1x4x4x1xf32>"]),
    "dynamic_gather": ([F, "tensor<2x1xi32>"], [
        "%s = stablehlo.constant dense<[1, 3]> : tensor<2xi64>",
        '%r = "stablehlo.dynamic_gather"(%a, %b, %s) {dimension_numbers = #stablehlo.gather<'
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
        f"index_vector_dim = 1>}} : ({F}, tensor<2x1xi32>, tensor<2xi64>) -> {F}"], [F]),
    "dynamic_iota": ([], [_S23, '%r = "stablehlo.dynamic_iota"(%s) {iota_dimension = 1 : i64} : '
                          f"(tensor<2xi64>) -> {I}"], [I]),
    "dynamic_pad": ([F, "tensor<f32>"], [
        "%s = stablehlo.constant dense<[0, 1]> : tensor<2xi64>",
        "%t = stablehlo.constant dense<[1, 0]> : tensor<2xi64>",
        '%r = "stablehlo.dynamic_pad"(%a, %b, %s, %t, %t) : '
        f"({F}, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x4xf32>"],
        ["tensor<4x4xf32>"]),
    "dynamic_reshape": ([F], ["%s = stablehlo.constant dense<[3, 2]> : tensor<2xi64>",
                              f'%r = "stablehlo.dynamic_reshape"(%a, %s) : ({F}, tensor<2xi64>) '
                              "-> tensor<3x2xf32>"], ["tensor<3x2xf32>"]),
    "get_dimension_size": ([F], [f'%r = "stablehlo.get_dimension_size"(%a) {{dimension = 1 : i64}}'
                                 f" : ({F}) -> tensor<i32>"], ["tensor<i32>"]),
    "set_dimension_size": ([F], ["%s = stablehlo.constant dense<3> : tensor<i32>",
                                 f'%r = "stablehlo.set_dimension_size"(%a, %s) {{dimension = 1 : '
                                 f"i64}} : ({F}, tensor<i32>) -> {F}"], [F]),
})
# How the pretty printer spells some ops (as JAX does).
PRINTED_AS_WRITTEN = {
    # MLIR's float spelling: %.6e when it reads back to the same f32.
    "batch_norm_training": '= "stablehlo.batch_norm_training"(%arg0, %arg1, %arg2) {epsilon = '
                           "1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<2x3x2xf32>, "
                           "tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2xf32>, tensor<3xf32>, "
                           "tensor<3xf32>)\n",
    "add": f"= stablehlo.add %arg0, %arg1 : {F}\n",
    "compare": f"= stablehlo.compare LT, %arg0, %arg1, FLOAT : ({F}, {F}) -> {B}\n",
    "select": f"= stablehlo.select %arg0, %arg1, %arg2 : {B}, {F}\n",
    "slice": f"= stablehlo.slice %arg0 [0:2, 0:3:2] : ({F}) -> tensor<2x2xf32>\n",
    "dot_general": "= stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], "
                   "contracting_dims = [2] x [1] : (tensor<2x2x3xf32>, tensor<2x3x4xf32>) -> "
                   "tensor<2x2x4xf32>\n",
    "reduce": "stablehlo.reduce(%arg0 init: %0) applies stablehlo.add across dimensions = [1] : "
              f"({F}, tensor<f32>) -> tensor<2xf32>\n",
    "transpose": f"= stablehlo.transpose %arg0, dims = [1, 0] : ({F}) -> tensor<3x2xf32>\n",
    "iota": f"= stablehlo.iota dim = 1 : {I}\n",
    "dynamic_slice": "= stablehlo.dynamic_slice %arg0, %arg1, %arg1, sizes = [1, 2] : (" + F
                     + ", tensor<i32>, tensor<i32>) -> tensor<1x2xf32>\n",
    "call": f"= call @helper(%arg0) : ({F}) -> {F}\n",
    "cholesky": "= stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>\n",
    "pad": "= stablehlo.pad %arg0, %arg1, low = [0, 1], high = [1, 0], interior = [1, 0] : "
           f"({F}, tensor<f32>) -> tensor<4x4xf32>\n",
}
# Not ops of the text: parameters are function arguments; fusion is made by
# xjit's passes, never parsed.
NOT_TEXT = {"parameter", "fusion"}
HELPER = (f"func.func private @helper(%x: {F}) -> {F} {{\n"
          f"  %0 = stablehlo.sine %x : {F}\n  return %0 : {F}\n}}\n")


def module_text(op):
    args, body, results = CASES[op]
    params = ", ".join(f"%{n}: {t}" for n, t in zip("abcde", args))
    names = {"reduce": "%r#0, %r#1, %s", "rng_bit_generator": "%s, %r", "sort": "%r#0, %r#1",
             "while": "%r#1", "batch_norm_training": "%r#0, %r#1, %r#2",
             "batch_norm_grad": "%r#0, %r#1, %r#2", "optimization_barrier": "%r#0, %r#1",
             "custom_call": "%r#0, %r#1"}
    ret = names.get(op, "%r")
    lines = [f"module @jit_{op} attributes {{mhlo.num_partitions = 1 : i32}} {{",
             f"func.func public @main({params}) -> ({', '.join(results)}) {{"]
    lines += [f"  {b}" for b in body]
    lines += [f"  return {ret} : {', '.join(results)}", "}"]
    if op in ("call", "composite"):
        lines.append(HELPER)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _inputs(module, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for a in module.in_avals:
        if a.dtype == np.bool_:
            out.append(rng.random(a.shape) > 0.5)
        elif a.dtype.kind in "iu":
            # Small enough to be in-range indices of the gather/scatter cases.
            out.append(rng.integers(0, 2, a.shape).astype(a.dtype))
        elif a.dtype.kind == "c":
            out.append((rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape))
                       .astype(a.dtype))
        else:
            out.append(rng.uniform(0.1, 2.0, a.shape).astype(a.dtype))
    return out


def test_every_op_has_a_case():
    ops = {name for name in re.findall(r"^\| `(\w+)` \|", _ops_md(), re.M)}
    missing = sorted(ops - set(CASES) - {"get_tuple_element"} - NOT_TEXT)
    assert not missing, f"add a pretty-form case to CASES for: {missing}"


def _ops_md():
    import pathlib
    return (pathlib.Path(__file__).resolve().parents[1] / "docs" / "ops.md").read_text()


@pytest.mark.parametrize("op", sorted(CASES))
def test_print_parse_print_is_a_fixed_point(op):
    module = stablehlo.parse(module_text(op))
    for pretty in (True, False):
        printed = module.as_text(pretty=pretty)
        again = stablehlo.parse(printed)
        assert again.as_text(pretty=pretty) == printed
        assert again.in_avals == module.in_avals and again.out_avals == module.out_avals
    # The pretty printing is JAX's spelling: each op's line reads as written.
    if op in PRINTED_AS_WRITTEN:
        assert PRINTED_AS_WRITTEN[op] in module.as_text(), module.as_text()
    xs = _inputs(module)
    _feed_host_queues(op, 2)
    for platform in ("cpu", "reference"):
        want = stablehlo.run(module, *xs, device=platform)
        got = stablehlo.run(again, *xs, device=platform)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    _drain_host_queues(op, 2)


def test_pretty_and_generic_forms_give_the_same_module():
    pretty = module_text("dot_general")
    generic = pretty.replace(
        "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
        "precision = [DEFAULT, DEFAULT] : (",
        '"stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<'
        "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
        "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, "
        "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (")
    assert generic != pretty
    assert stablehlo.parse(generic).as_text() == stablehlo.parse(pretty).as_text()


BAD = [
    ("%r = stablehlo.transpose %a, perm = [1, 0] : (" + F + ") -> tensor<3x2xf32>",
     r"3:32: stablehlo.transpose has no keyword 'perm' \(expected dims\)"),
    ("%r = stablehlo.slice %a [0:2, 0] : (" + F + ") -> tensor<2x1xf32>",
     r"3:34: expected ':' after the slice's start, got '\]'"),
    ("%r = stablehlo.compare %a, %a : (" + F + ", " + F + ") -> " + B,
     r"3:26: expected a comparison direction such as LT, got '%a'"),
    ("%r = stablehlo.dot_general %a, %a, contracting_dims = [1] [1] : (" + F + ", " + F
     + ") -> tensor<2x2xf32>",
     r"3:61: expected 'x' between the lhs and rhs contracting_dims, got '\['"),
    ("%r = stablehlo.reduce(%a init: %a) across dimensions = [0] : (" + F + ", " + F
     + ") -> tensor<3xf32>",
     r"4:1: expected 'reducer\(...\)' or 'applies'"),
    ("%r = stablehlo.collective_permute %a : " + F,
     r"3:3: op 'stablehlo.collective_permute' is not supported by xjit"),
]


@pytest.mark.parametrize("line,message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_malformed_pretty_forms_name_line_column_and_expectation(line, message):
    text = (f"func.func @main(%a: {F}) -> {F} {{\n  // a comment\n  {line}\n"
            f"}}\n")
    error = NotImplementedError if "collective_permute" in line else ValueError
    with pytest.raises(error, match="^" + message):
        stablehlo.parse(text)


def test_region_uses_a_constant_defined_outside():
    text = f"""func.func @main(%a: {F}) -> {F} {{
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %r = "stablehlo.map"(%a) <{{dimensions = array<i64: 0, 1>}}> ({{
  ^bb0(%x: tensor<f32>):
    %m = stablehlo.multiply %x, %two : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }}) : ({F}) -> {F}
  return %r : {F}
}}"""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = stablehlo.run(text, x)
    np.testing.assert_array_equal(np.asarray(out), 2 * x)
    # Other values from outside: only while, if and case capture them.
    captured = text.replace("@main(%a: {F})".format(F=F), "@main(%a: {F}, %s: tensor<f32>)".format(F=F))
    captured = captured.replace("%x, %two", "%x, %s")
    with pytest.raises(NotImplementedError, match="except those of while, if and case"):
        stablehlo.parse(captured)
