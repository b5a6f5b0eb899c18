"""A NeMo Gym-side client, written against the reference's request models (field for field as
nemo_gym/base_resources_server.py, openai_utils.py and resources_servers/*/app.py define them in
NVIDIA-NeMo/Gym; the `nemo-gym` package needs Python >= 3.12, so the fields are written out here).

The models validate what goes out and what comes back: a server that drops `responses_create_params`,
answers `reward` as text or returns output items without ids fails here, as it would in NeMo Gym."""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Union

import requests
from pydantic import BaseModel, ConfigDict, Field


class EasyInputMessage(BaseModel):
    content: Union[str, List[dict]]
    role: Literal["user", "assistant", "system", "developer"]
    type: Literal["message"] = "message"


class ResponseCreateParamsNonStreaming(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: Union[str, List[Union[EasyInputMessage, dict]]]
    instructions: Optional[str] = None
    max_output_tokens: Optional[int] = None
    model: Optional[str] = None
    parallel_tool_calls: bool = True
    temperature: Optional[float] = None
    tool_choice: Any = "auto"
    tools: List[dict] = Field(default_factory=list)
    top_p: Optional[float] = None


class OutputText(BaseModel):
    annotations: List[Any]
    text: str
    type: Literal["output_text"] = "output_text"


class OutputMessage(BaseModel):
    id: str
    content: List[OutputText]
    role: Literal["assistant"] = "assistant"
    status: Literal["in_progress", "completed", "incomplete"] = "completed"
    type: Literal["message"] = "message"


class FunctionToolCall(BaseModel):
    arguments: str
    call_id: str
    name: str
    type: Literal["function_call"] = "function_call"
    id: Optional[str] = None


class FunctionCallOutput(BaseModel):
    call_id: str
    output: str
    type: Literal["function_call_output"] = "function_call_output"


class Response(BaseModel):
    id: str
    created_at: float
    model: str
    object: Literal["response"] = "response"
    output: List[Union[OutputMessage, FunctionToolCall, FunctionCallOutput, dict]]
    parallel_tool_calls: bool
    tool_choice: Any
    tools: List[Any]


class BaseRunRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # each server's subclass adds the row's fields
    responses_create_params: ResponseCreateParamsNonStreaming


class BaseVerifyRequest(BaseRunRequest):
    response: Response


class BaseVerifyResponse(BaseVerifyRequest):
    reward: float


class NemoGymClient:
    """What a NeMo Gym agent does with a resources server: cookies carry the session across calls."""

    def __init__(self, url: str):
        self.url, self.http = url.rstrip("/"), requests.Session()

    def post(self, path: str, body: BaseModel | dict) -> requests.Response:
        data = body.model_dump(mode="json", exclude_none=True) if isinstance(body, BaseModel) else body
        response = self.http.post(self.url + path, json=data, timeout=120)
        response.raise_for_status()
        return response

    def seed_session(self, **row: Any) -> dict:
        return self.post("/seed_session", row).json()

    def tool(self, name: str, arguments: dict) -> str:
        return self.post(f"/{name}", arguments).text

    def verify(self, request: BaseVerifyRequest) -> BaseVerifyResponse:
        return BaseVerifyResponse.model_validate(self.post("/verify", request).json())

    def run(self, request: BaseRunRequest) -> BaseVerifyResponse:
        return BaseVerifyResponse.model_validate(self.post("/run", request).json())
