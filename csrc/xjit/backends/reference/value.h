// A runtime value of the reference evaluator: an array (Literal) or a tuple
// of values. Tuples appear only as results of tuple/call/variadic reduce.
#pragma once

#include <vector>

#include "xjit/ir/literal.h"

namespace xjit::reference {

struct Value {
  bool is_tuple = false;
  Literal array;               // when !is_tuple
  std::vector<Value> elements;  // when is_tuple

  Value() = default;
  explicit Value(Literal l) : array(std::move(l)) {}
  static Value Tuple(std::vector<Value> elements) {
    Value v;
    v.is_tuple = true;
    v.elements = std::move(elements);
    return v;
  }
  Shape shape() const {
    if (!is_tuple) return array.shape();
    std::vector<Shape> shapes;
    for (const Value& e : elements) shapes.push_back(e.shape());
    return Shape::Tuple(std::move(shapes));
  }
};

}  // namespace xjit::reference
