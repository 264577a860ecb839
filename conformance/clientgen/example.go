// Reads an agent's stdout records (JSONL, the file named first) with the structs that
// generate.sh writes (pi_rpc.go, package pirpc, in the module's folder pirpc/) and prints one
// line a record, as example.py does; a record the structs reject ends it with status 1.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"example.com/client/pirpc"
)

// README begin
// summary reads the record's tag, then the record into the struct of its definition.
func summary(line []byte) (string, error) {
	var tag struct {
		Type    string  `json:"type"`
		Command *string `json:"command"`
		Success bool    `json:"success"`
	}
	if err := json.Unmarshal(line, &tag); err != nil {
		return "", err
	}
	switch tag.Type {
	case "response":
		out := "response -"
		if tag.Command != nil {
			out = "response " + *tag.Command
		}
		if !tag.Success {
			var r pirpc.ErrorResponse
			return out + " error", json.Unmarshal(line, &r)
		}
		if tag.Command != nil && *tag.Command == "get_state" {
			var r pirpc.GetStateResponse
			err := json.Unmarshal(line, &r)
			return fmt.Sprintf("%s ok model=%s messages=%d", out, r.Data.Model.ID,
				r.Data.MessageCount), err
		}
		var r pirpc.Response
		return out + " ok", json.Unmarshal(line, &r)
	case "extension_ui_request":
		var r pirpc.ExtensionUIRequest
		err := json.Unmarshal(line, &r)
		return "extension_ui_request " + string(r.Method), err
	case "message_update":
		var e pirpc.MessageUpdateEvent
		err := json.Unmarshal(line, &e)
		update := e.AssistantMessageEvent
		if update.Type == "text_delta" && update.Delta != nil {
			return fmt.Sprintf("message_update %s %s", update.Type, *update.Delta), err
		}
		return "message_update " + string(update.Type), err
	case "message_end":
		var e pirpc.MessageEvent
		err := json.Unmarshal(line, &e)
		return "message_end " + string(e.Message.Role), err
	case "agent_end":
		var e pirpc.AgentEndEvent
		err := json.Unmarshal(line, &e)
		return fmt.Sprintf("agent_end %d", len(e.Messages)), err
	}
	var e pirpc.Event
	return tag.Type, json.Unmarshal(line, &e)
}

// README end

func main() {
	file, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	lines := bufio.NewScanner(file)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	for lines.Scan() {
		out, err := summary(lines.Bytes())
		if err != nil {
			fmt.Fprintln(os.Stderr, "rejected:", err)
			os.Exit(1)
		}
		fmt.Println(out)
	}
}
