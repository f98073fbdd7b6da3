package cmd

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/svc-geodata/svc/access"
	"github.com/svc-geodata/svc/state"
)

// sideDB is the side database (keys, counters) in the data directory; the
// static tile host never serves it.
const sideDB = "svc.db"

func newKeys() *cobra.Command {
	var data, url string
	c := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke API keys in the side database of a data directory",
		Long: `keys manages the API keys in <data>/svc.db. It works while a server runs on the same
directory: a revocation takes effect there within about a second.`,
	}
	c.PersistentFlags().StringVar(&data, "data", "./data", "data directory holding the side database svc.db")
	c.PersistentFlags().StringVar(&url, "state", "", stateFlagHelp)
	c.AddCommand(newKeysCreate(&data, &url), newKeysList(&data, &url), newKeysRevoke(&data, &url), newKeysAudit(&data, &url))
	for _, sub := range c.Commands() {
		addEnvHelp(sub)
	}
	return c
}

// withAccess opens the side database of data for one command. Key changes
// made through c's context appear as "cli" in the audit trail.
func withAccess(c *cobra.Command, data, url string, f func(*access.Service) error) error {
	c.SetContext(state.WithActor(c.Context(), "cli"))
	ctx := c.Context()
	st, err := openState(ctx, data, url)
	if err != nil {
		return err
	}
	defer st.Close()
	acc, err := access.New(ctx, access.Options{Store: st})
	if err != nil {
		return err
	}
	return f(acc)
}

func newKeysCreate(data, url *string) *cobra.Command {
	var customer, tier, email, notes string
	var quota int64
	c := &cobra.Command{
		Use:   "create --customer NAME --tier TIER [--email ADDR] [--quota N]",
		Short: "Create a key and print its plaintext (shown only once)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			req := access.CreateRequest{CustomerName: customer, Tier: tier}
			if c.Flags().Changed("email") || email != "" {
				req.ContactEmail = &email
			}
			if c.Flags().Changed("quota") || quota != 0 {
				req.MonthlyCallQuota = &quota
			}
			if notes != "" {
				req.Notes = &notes
			}
			return withAccess(c, *data, *url, func(acc *access.Service) error {
				k, err := acc.CreateKey(c.Context(), req)
				if err != nil {
					return err
				}
				out := c.OutOrStdout()
				fmt.Fprintf(out, "api_key_id: %s\nkey_prefix: %s\ntier:       %s\n", k.Key.ID, k.Key.Prefix, k.Key.Tier)
				fmt.Fprintf(out, "key:        %s\n(the key is shown only now; the server keeps its hash)\n", k.Plaintext)
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&customer, "customer", "", "customer name (required)")
	f.StringVar(&tier, "tier", "", "tier: trial, pro, business or internal (required)")
	f.StringVar(&email, "email", "", "contact e-mail")
	f.Int64Var(&quota, "quota", 0, "monthly call quota (soft); unset: unlimited")
	f.StringVar(&notes, "notes", "", "free-text notes")
	_ = c.MarkFlagRequired("customer")
	_ = c.MarkFlagRequired("tier")
	return c
}

func newKeysList(data, url *string) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List all keys (never a plaintext)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return withAccess(c, *data, *url, func(acc *access.Service) error {
				ks, err := acc.ListKeys(c.Context())
				if err != nil {
					return err
				}
				return printKeys(c.OutOrStdout(), ks, time.Now())
			})
		},
	}
}

func printKeys(w io.Writer, ks []state.Key, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "API_KEY_ID\tPREFIX\tTIER\tSTATUS\tCUSTOMER\tCONTACT\tQUOTA\tCREATED\tLAST_USED")
	for _, k := range ks {
		status := access.StatusActive
		switch {
		case k.RevokedAt != nil:
			status = access.StatusRevoked
		case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
			status = access.StatusExpired
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Tier, status, k.CustomerName,
			deref(k.ContactEmail), quotaText(k), k.CreatedAt.Format(time.RFC3339), timeText(k.LastUsedAt))
	}
	return tw.Flush()
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// quotaText is the monthly quota the server applies to k: its own, else
// the trial tier's soft limit (what X-Svc-Quota-Limit says), else none.
func quotaText(k state.Key) string {
	switch {
	case k.MonthlyCallQuota != nil:
		return fmt.Sprint(*k.MonthlyCallQuota)
	case k.Tier == access.TierTrial:
		return fmt.Sprintf("%d/month (trial)", access.TrialLimits.PerMonth)
	}
	return "unlimited"
}

func timeText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

func newKeysRevoke(data, url *string) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke API_KEY_ID",
		Short: "Revoke a key (idempotent)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withAccess(c, *data, *url, func(acc *access.Service) error {
				k, err := acc.RevokeKey(c.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "revoked %s (%s, %s) at %s\n", k.ID, k.Prefix, k.CustomerName, k.RevokedAt.Format(time.RFC3339))
				return nil
			})
		},
	}
}

func newKeysAudit(data, url *string) *cobra.Command {
	var after int64
	return &cobra.Command{
		Use:   "audit [--after SEQ]",
		Short: "Print the audit trail of key changes (create, mint, revoke), oldest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return withAccess(c, *data, *url, func(acc *access.Service) error {
				tw := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "SEQ\tAT\tACTION\tAPI_KEY_ID\tACTOR\tDETAIL")
				for {
					ev, err := acc.Audit(c.Context(), after, state.MaxAuditPage)
					if err != nil {
						return err
					}
					for _, e := range ev {
						fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.Seq, e.At.Format(time.RFC3339), e.Action, e.KeyID, e.Actor, e.Detail)
						after = e.Seq
					}
					if len(ev) < state.MaxAuditPage {
						return tw.Flush()
					}
				}
			})
		},
	}
}
