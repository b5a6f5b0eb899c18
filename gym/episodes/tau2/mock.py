"""τ²-bench's `mock` domain: users with tasks (agent side) and a notification inbox (user side).

Behaviour follows upstream's src/tau2/domains/mock (tools.py, user_tools.py, data_model.py); pinned by
tests that replay every task's gold actions and compare outputs and database hashes with values computed
from the upstream data.
"""

from __future__ import annotations

from gym.episodes.tau2.domain import Domain, Tool, Toolkit
from gym.episodes.tau2.records import REQUIRED, Record, Shape

TASK = Shape("Task", (("task_id", REQUIRED), ("title", REQUIRED), ("description", None), ("status", REQUIRED)))
USER = Shape("User", (("user_id", REQUIRED), ("name", REQUIRED), ("tasks", REQUIRED)))
NOTIFICATION = Shape("Notification", (("notification_id", REQUIRED), ("message", REQUIRED),
                                      ("status", "unread"), ("task_id", None)))


def create_task(db: dict, user_id: str, title: str, description: str | None = None) -> Record:
    if user_id not in db["users"]:
        raise ValueError(f"User {user_id} not found")
    task_id = f"task_{len(db['tasks']) + 1}"  # upstream numbers by count, so a gap can collide: kept as is
    task = TASK.make({"task_id": task_id, "title": title, "description": description, "status": "pending"},
                     "create_task")
    db["tasks"][task_id] = task
    db["users"][user_id]["tasks"].append(task_id)
    return task


def get_users(db: dict) -> list:
    return list(db["users"].values())


def update_task_status(db: dict, task_id: str, status: str) -> Record:
    if task_id not in db["tasks"]:
        raise ValueError(f"Task {task_id} not found")
    task = db["tasks"][task_id]
    task["status"] = status  # upstream assigns without validation: any value is stored
    return task


def transfer_to_human_agents(db: dict, summary: str) -> str:
    return "Transfer successful"


def assert_number_of_tasks(db: dict, user_id: str, expected_number: int) -> bool:
    if user_id not in db["users"]:
        raise ValueError(f"User {user_id} not found")
    return len(db["users"][user_id]["tasks"]) == expected_number


def assert_task_status(db: dict, task_id: str, expected_status: str) -> bool:
    if task_id not in db["tasks"]:
        raise ValueError(f"Task {task_id} not found")
    return db["tasks"][task_id]["status"] == expected_status


def check_notifications(db: dict) -> list:
    return list(db["notifications"].values())


def dismiss_notification(db: dict, notification_id: str) -> str:
    if notification_id not in db["notifications"]:
        raise ValueError(f"Notification {notification_id} not found")
    db["notifications"][notification_id]["status"] = "read"
    return f"Notification {notification_id} dismissed"


def add_notification(db: dict, notification_id: str, message: str, task_id: str | None = None) -> Record:
    note = NOTIFICATION.make({"notification_id": notification_id, "message": message, "task_id": task_id},
                             "add_notification")
    db["notifications"][notification_id] = note
    return note


def assert_notification_status(db: dict, notification_id: str, expected_status: str) -> bool:
    if notification_id not in db["notifications"]:
        raise ValueError(f"Notification {notification_id} not found")
    return db["notifications"][notification_id]["status"] == expected_status


DOMAIN = Domain(
    name="mock",
    agent=Toolkit(
        tables={"tasks": TASK, "users": USER},
        tools={"create_task": Tool(create_task, mutates=True), "get_users": Tool(get_users),
               "update_task_status": Tool(update_task_status, mutates=True),
               "transfer_to_human_agents": Tool(transfer_to_human_agents)},
        helpers={"assert_number_of_tasks": assert_number_of_tasks, "assert_task_status": assert_task_status},
    ),
    user=Toolkit(
        tables={"notifications": NOTIFICATION},
        tools={"check_notifications": Tool(check_notifications),
               "dismiss_notification": Tool(dismiss_notification, mutates=True)},
        helpers={"add_notification": add_notification, "assert_notification_status": assert_notification_status},
    ),
)
