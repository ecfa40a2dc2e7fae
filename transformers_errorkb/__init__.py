"""The transformers KV-cache knowledge base's package, where `errorkb init` puts a knowledge base's own:
its index (`index.json`, written by `errorkb hook index`, registered under the `errorkb.indexes` entry
point) and its bundled implementation (`kvcache`, the `bundled` target). Installed by scripts/setup.sh
from its own pyproject.toml; the errorkb wheel ships neither."""
