"""BFCL multi-turn's TicketAPI (upstream ticket_api.py): a support-ticket queue behind a simple login.

Same tools, parameters, return values, error texts and state as upstream. One deliberate difference: when an
edit names several unknown fields, upstream lists them in set order (which changes from run to run with string
hashing); gym lists them in the order the edit gave them.
"""

from __future__ import annotations

from gym.episodes.bfcl.apis import Api
from gym.episodes.bfcl.apis.loading import load_attributes

DEFAULTS = {"ticket_queue": [], "ticket_counter": 1, "current_user": None}
EDITABLE_FIELDS = ("title", "description", "status", "priority")


def _not_found(ticket_id) -> dict:
    return {"error": f"Ticket with ID {ticket_id} not found."}


class TicketAPI(Api):
    def __init__(self) -> None:
        self.load_scenario({})

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        load_attributes(self, config, DEFAULTS)

    def _find_ticket(self, ticket_id) -> dict | None:
        return next((ticket for ticket in self.ticket_queue if ticket["id"] == ticket_id), None)

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict:
        if not self.current_user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        ticket = {"id": self.ticket_counter, "title": title, "description": description, "status": "Open",
                  "priority": priority, "created_by": self.current_user}
        self.ticket_queue.append(ticket)
        self.ticket_counter += 1
        return ticket

    def get_ticket(self, ticket_id: int) -> dict:
        ticket = self._find_ticket(ticket_id)
        return ticket if ticket else _not_found(ticket_id)

    def close_ticket(self, ticket_id: int) -> dict:
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _not_found(ticket_id)
        if ticket["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        ticket["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict:
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _not_found(ticket_id)
        if ticket["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        ticket["status"] = "Resolved"
        ticket["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict) -> dict:
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _not_found(ticket_id)
        unknown = [field for field in updates.keys() if field not in EDITABLE_FIELDS]
        if unknown:
            return {"error": f"Invalid fields for update: {', '.join(unknown)}"}
        for field, value in updates.items():
            if value is not None:
                ticket[field] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def ticket_login(self, username: str, password: str) -> dict:
        # Upstream accepts any non-empty pair.
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict:
        return {"login_status": bool(self.current_user)}

    def logout(self) -> dict:
        if self.current_user:
            self.current_user = None
            return {"success": True}
        return {"success": False}

    def get_user_tickets(self, status: str | None = None) -> list:
        if not self.current_user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        mine = [ticket for ticket in self.ticket_queue if ticket["created_by"] == self.current_user]
        if status:
            mine = [ticket for ticket in mine if ticket["status"].lower() == status.lower()]
        return mine
