#include "bind/shrinker_keys.h"

#include "trace/event_fields.h"

namespace allocwatch {

ShrinkerKey* ShrinkerKeys::find(std::string_view fields) {
  const ShrinkerId id = parse_shrinker_id(fields);
  if (id.instance.empty())
    return nullptr;
  const std::size_t end =
      static_cast<std::size_t>(id.instance.data() - fields.data()) + id.instance.size();
  const std::string_view prefix = fields.substr(0, end);
  if (ShrinkerKey* found = index_.find(prefix))
    return found;
  if (keys_.size() >= kMaxKeys)
    return nullptr;
  ShrinkerKey& key = keys_.emplace_back();
  key.prefix.assign(prefix);
  const std::string_view kept = key.prefix;
  key.symbol =
      kept.substr(static_cast<std::size_t>(id.symbol.data() - fields.data()), id.symbol.size());
  key.instance =
      kept.substr(static_cast<std::size_t>(id.instance.data() - fields.data()), id.instance.size());
  index_.insert(kept, &key);
  return &key;
}

ShrinkerKey* ShrinkerKeys::find_after(ShrinkerKey* previous, std::string_view fields) {
  if (previous == nullptr)
    return find(fields);
  // named_by() is exact: when it says yes, find() would return that key.
  if (previous->next != nullptr && previous->next->named_by(fields))
    return previous->next;
  if (previous->named_by(fields))
    return previous;
  ShrinkerKey* key = find(fields);
  if (key != nullptr)
    previous->next = key;
  return key;
}

} // namespace allocwatch
