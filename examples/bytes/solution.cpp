// Bytes and nested values, nothing but the function: bytes are a
// tether::bytes, a record (Meta, Transformed) a tether::json object.
tether::json transform(tether::bytes blob, tether::json meta) {
  tether::bytes reversed(blob.rbegin(), blob.rend()), complement;
  for (auto b : blob) complement.push_back(255 - b);
  tether::json::object_t stats{{"raw", tether::bytes{0x00, 0xff}}, {"size", blob.size()}, {"half", blob.size() / 2.0}};
  return tether::json::object_t{{"reversed", reversed}, {"complement", complement}, {"meta", meta}, {"stats", stats}};
}
