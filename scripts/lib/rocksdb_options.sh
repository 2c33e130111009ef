# write_rocksdb_options FILE WRITE_BUFFER TARGET_FILE LEVEL_BASE [COMPRESSION [CF_OPTION=VALUE...]]
# Writes a RocksDB 7.8 OPTIONS file that attaches HintfsEventListener and sets
# the memtable, table and L1 sizes (bytes). Stock tools read it with
# --options_file, through hintfs, so callers copy it in with `hintfs restore`.
write_rocksdb_options() {
  local file=$1 write_buffer=$2 target_file=$3 level_base=$4 compression=${5:-}
  shift $(( $# < 5 ? $# : 5 ))
  {
    echo "[Version]"
    echo "  rocksdb_version=7.8.3"
    echo "  options_file_version=1.1"
    echo "[DBOptions]"
    echo "  create_if_missing=true"
    echo "  listeners={HintfsEventListener}"
    echo "[CFOptions \"default\"]"
    echo "  write_buffer_size=$write_buffer"
    echo "  target_file_size_base=$target_file"
    echo "  max_bytes_for_level_base=$level_base"
    [ -n "$compression" ] && echo "  compression=$compression"
    local extra
    for extra in "$@"; do echo "  $extra"; done
    echo "[TableOptions/BlockBasedTable \"default\"]"
  } > "$file"
}
