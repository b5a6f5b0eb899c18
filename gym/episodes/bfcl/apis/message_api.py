"""BFCL's MessageAPI: a workspace's users, a login, and an inbox of {receiver id: text} messages.

As upstream, the inbox is one list for the whole workspace (every "sent" view and statistic reads all of
it), message ids come from a random.Random seeded by the scenario, and scenario values are used as given
(a generated_ids list from a config fails where upstream's does, when an id is added to it).
"""

from __future__ import annotations

import random

from gym.episodes.bfcl.apis import Api

DEFAULT_SEED = 200191
NOT_LOGGED_IN = {"error": "No user is currently logged in."}


def _default_state() -> dict:
    return {
        "generated_ids": set(), "user_count": 4,
        "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
        "inbox": [{"USR002": "My name is Alice. I want to connect."}, {"USR003": "Could you upload the file?"},
                  {"USR004": "Could you upload the file?"}],
        "message_count": 3, "current_user": None,
    }


def _only_item(message: dict) -> tuple:
    return next(iter(message.items()))


class MessageAPI(Api):
    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        self._random = random.Random(config.get("random_seed", DEFAULT_SEED))
        for key, default in _default_state().items():
            setattr(self, key, config.get(key, default))

    def _new_id(self) -> dict:
        number = self._random.randint(10000, 99999)
        while number in self.generated_ids:
            number = self._random.randint(10000, 99999)
        self.generated_ids.add(number)
        return {"new_id": number}

    def list_users(self) -> dict:
        return {"user_list": list(self.user_map)}

    def get_user_id(self, user: str) -> dict:
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map[user]}

    def message_login(self, user_id: str) -> dict:
        if user_id not in self.user_map.values():
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict:
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict:
        if not self.current_user:
            return NOT_LOGGED_IN
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        message_id = self._new_id()  # upstream hands back the whole {"new_id": n}
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {"sent_status": True, "message_id": message_id,
                "message": f"Message sent to '{receiver_id}' successfully."}

    def delete_message(self, receiver_id: str) -> dict:
        if not self.current_user:
            return NOT_LOGGED_IN
        latest = next((m for m in reversed(self.inbox) if _only_item(m)[0] == receiver_id), None)
        if latest is None:
            return {"error": f"Receiver ID {receiver_id} not found."}
        self.inbox.remove(latest)
        return {"deleted_status": True, "receiver_id": receiver_id,
                "message": f"Receiver {receiver_id}'s latest message deleted successfully."}

    def view_messages_sent(self) -> dict:
        if not self.current_user:
            return NOT_LOGGED_IN
        grouped: dict = {}
        for message in self.inbox:
            receiver, text = _only_item(message)
            grouped.setdefault(receiver, []).append(text)
        return {"messages": grouped}

    def add_contact(self, user_name: str) -> dict:
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        self.user_count += 1
        user_id = f"USR{self.user_count:03d}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {"added_status": True, "user_id": user_id, "message": f"Contact '{user_name}' added successfully."}

    def search_messages(self, keyword: str) -> dict:
        if not self.current_user:
            return NOT_LOGGED_IN
        wanted = keyword.lower()
        found = [{"receiver_id": receiver, "message": text}
                 for receiver, text in map(_only_item, self.inbox) if wanted in text.lower()]
        return {"results": found}

    def get_message_stats(self) -> dict:
        if not self.current_user:
            return NOT_LOGGED_IN
        receivers = [_only_item(m)[0] for m in self.inbox]
        return {"stats": {"received_count": len(receivers), "total_contacts": len(set(receivers))}}
